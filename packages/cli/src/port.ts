import { UnauthorizedError } from '@canon/core/errors';
import { httpPort, runtimePort, type CanonPort } from '@canon/mcp';
import { createRuntime, type Config, type RuntimeOptions } from '@canon/runtime';
import { readDevKey, runningServer, writeDevKey } from './home.js';

/**
 * The same choice as `connect()`, as a port for `canon mcp` and `canon inspect`: CANON_URL
 * (+ CANON_API_KEY) → that server; else a server running on this CANON_HOME → it, with the dev
 * key; else an in-process runtime on the same database, as the key's principal.
 */
export async function openPort(config: Config, options: RuntimeOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<CanonPort> {
  const key = env['CANON_API_KEY'] || readDevKey(config);
  const url = env['CANON_URL'] || runningServer(config)?.url;
  if (url) {
    if (!key) throw new UnauthorizedError('set CANON_API_KEY to an API key of that server');
    return httpPort(url, key);
  }
  const runtime = await createRuntime(config, options);
  try {
    let bearer = key;
    if (!bearer) {
      const created = await runtime.bootstrap();
      if (!created) throw new UnauthorizedError('set CANON_API_KEY (no dev key in CANON_HOME)');
      writeDevKey(config, created.key);
      bearer = created.key;
    }
    const principal = await runtime.authenticate(bearer);
    return runtimePort(runtime, principal, () => runtime.close());
  } catch (err) {
    await runtime.close();
    throw err;
  }
}
