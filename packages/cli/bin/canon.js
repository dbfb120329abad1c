#!/usr/bin/env node
// The built entry, run in this same process so that a signal sent to it reaches the code that
// handles it. `npm install` builds it (the root's `prepare`); `npm run build` after an edit.
import module from 'node:module';

// Node 22.1+ keeps the compiled code of the modules a command loads, so the next command starts
// sooner; Node 20 has no such cache and starts as before.
module.enableCompileCache?.();
await import('../dist/main.js');
