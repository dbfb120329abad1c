export { exitCodeOf } from './exit-code.js';
