#!/usr/bin/env node
// Runs the TypeScript entry through tsx's loader in this same process, so the CLI needs no build
// step and a signal sent to this process reaches the code that handles it.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
