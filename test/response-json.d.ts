// Tests read many JSON bodies of known shape; let them index into them without a cast each.
declare global {
  interface Response {
    json(): Promise<any>;
  }
}
export {};
