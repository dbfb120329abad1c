export { exitCodeOf } from './exit-code.js';
export { handleInterrupts } from './interrupts.js';
