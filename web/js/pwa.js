// Installable web app (issue 30): registers the service worker (../sw.js, scope `/`)
// that keeps the client shell for offline and repeat visits. Browsers without
// service workers (or on plain http other than localhost) just skip it.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => {});
}
