// Part of scripts/build-web-sdk.sh: makes the web client's copy of the SDK load
// without a bundler or an import map (the server's Content-Security-Policy,
// `script-src 'self'`, refuses inline scripts, and an import map is one).
//   node scripts/web-vendor.mjs SDK_COPY VENDOR
// 1. In every .js file under SDK_COPY, each bare import of an npm package
//    (`from '@noble/hashes/sha2.js'`) becomes a relative one into VENDOR
//    (`from '../vendor/noble-hashes/sha2.js'`).
// 2. Copies into VENDOR/<scope-name>/ each such file from sdk/node_modules, the
//    package's files those import in turn (relative imports, followed to the end),
//    its LICENSE and a VERSION file (the version installed from sdk/package-lock.json).
// Fails on an import it cannot resolve (a bare import inside a package, say).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [sdkCopy, vendor] = process.argv.slice(2);
if (!sdkCopy || !vendor) throw new Error('usage: node scripts/web-vendor.mjs SDK_COPY VENDOR');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const modules = path.join(root, 'sdk', 'node_modules');

// A module's static imports and re-exports, each at the start of a line as tsc and
// noble's build write them (so the examples in doc comments are not taken):
// `import { a, b as c } from '…'` (over several lines too), `export * from '…'`,
// `import '…'`. Groups: 1 what comes before the quote, 2 the quote, 3 the specifier.
const SPECIFIER = /^((?:import|export)\b[\w\s{},*$]*?\bfrom\s*|import\s*)(['"])([^'"\n]+)\2/gm;

/** `@noble/hashes/sha2.js` → { pkg: '@noble/hashes', file: 'sha2.js' }. */
function splitBare(spec) {
  const parts = spec.split('/');
  const n = spec.startsWith('@') ? 2 : 1;
  return { pkg: parts.slice(0, n).join('/'), file: parts.slice(n).join('/') };
}
/** The folder of a package in VENDOR: `@noble/hashes` → `noble-hashes`. */
const vendorName = (pkg) => pkg.replace(/^@/, '').replace('/', '-');

/** The package file a subpath names, through its `exports` map (plain string entries). */
function resolveExport(pkg, file) {
  const meta = JSON.parse(readFileSync(path.join(modules, pkg, 'package.json'), 'utf8'));
  const target = typeof meta.exports === 'object' ? meta.exports[`./${file}`] : `./${file}`;
  if (typeof target !== 'string') throw new Error(`${pkg}/${file}: not a plain export of ${pkg}`);
  return path.normalize(target);
}

const wanted = new Map(); // pkg → Set of files (relative to the package folder)
const jsFiles = (dir) =>
  readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? jsFiles(p) : n.endsWith('.js') ? [p] : [];
  });

// 1. The SDK copy: bare imports become relative ones into VENDOR.
for (const f of jsFiles(sdkCopy)) {
  const src = readFileSync(f, 'utf8');
  const out = src.replace(SPECIFIER, (all, head, q, spec) => {
    if (spec.startsWith('.') || spec.startsWith('/')) return all;
    const { pkg, file } = splitBare(spec);
    if (!existsSync(path.join(modules, pkg, 'package.json'))) throw new Error(`${f}: ${spec} is not installed in sdk/node_modules`);
    const target = resolveExport(pkg, file);
    if (!wanted.has(pkg)) wanted.set(pkg, new Set());
    wanted.get(pkg).add(target);
    let rel = path.relative(path.dirname(f), path.join(vendor, vendorName(pkg), target)).split(path.sep).join('/');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `${head}${q}${rel}${q}`;
  });
  if (out !== src) writeFileSync(f, out);
}

// 2. The vendored files: the closure of their relative imports, the LICENSE, the version.
for (const [pkg, files] of wanted) {
  const from = path.join(modules, pkg);
  const to = path.join(vendor, vendorName(pkg));
  const todo = [...files];
  const done = new Set();
  while (todo.length) {
    const file = todo.pop();
    if (done.has(file)) continue;
    done.add(file);
    const text = readFileSync(path.join(from, file), 'utf8');
    for (const [, , , spec] of text.matchAll(SPECIFIER)) {
      if (!spec.startsWith('.')) throw new Error(`${pkg}/${file} imports ${spec}: only relative imports can be vendored`);
      todo.push(path.normalize(path.join(path.dirname(file), spec)));
    }
    mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    // Byte for byte as published (the .d.ts, .map and src/ files are not copied).
    copyFileSync(path.join(from, file), path.join(to, file));
  }
  copyFileSync(path.join(from, 'LICENSE'), path.join(to, 'LICENSE'));
  const { version } = JSON.parse(readFileSync(path.join(from, 'package.json'), 'utf8'));
  writeFileSync(path.join(to, 'VERSION'), `${pkg}@${version} (sdk/package-lock.json), files: ${[...done].sort().join(' ')}\n`);
}
