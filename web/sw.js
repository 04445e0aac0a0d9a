// Service worker of the installable web client (issue 30): keeps the client shell
// (index.html, CSS, the JavaScript modules, the manifest and icon) in a cache so a
// repeat visit opens without the network.
//
// Network first: every request for a shell file goes to the network (the server
// answers `304 Not Modified` with no body when the file is unchanged, so a new
// release is picked up at once) and refreshes the cache; only when the network
// fails is the cached copy served. The API (`/api/`), the WebSocket (`/ws`) and
// other origins are never cached.
const CACHE = 'ludo-shell-v1';
const SHELL = ['/', '/css/app.css', '/js/app.js', '/js/pwa.js', '/manifest.webmanifest', '/icon.svg'];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

function isShell(url) {
  return (
    url.origin === self.location.origin &&
    !url.pathname.startsWith('/api/') &&
    url.pathname !== '/ws' &&
    url.pathname !== '/metrics' &&
    !url.pathname.startsWith('/healthz') &&
    !url.pathname.startsWith('/readyz')
  );
}

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (!isShell(url)) return;
  // Navigations (any path, any hash route) open the shell's index.html.
  const key = req.mode === 'navigate' ? '/' : req;
  event.respondWith(
    fetch(req)
      .then((res) => {
        if (res.ok) {
          const copy = res.clone();
          caches.open(CACHE).then((c) => c.put(key, copy));
        }
        return res;
      })
      .catch(() => caches.match(key).then((hit) => hit || Response.error())),
  );
});
