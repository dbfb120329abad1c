#!/usr/bin/env node
// The built entry, run in this same process so that a signal sent to it reaches the code that
// handles it. `npm install` builds it (the root's `prepare`); `npm run build` after an edit.
await import('../dist/main.js');
