import type { z } from 'zod';
import { ConnectorConfigError } from './errors.js';

/** Parses a connector's configuration once at the edge into a frozen value. */
export function parseConfig<Config>(connectorId: string, schema: z.ZodType<Config>, raw: unknown): Readonly<Config> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ConnectorConfigError(connectorId, parsed.error.issues);
  return Object.freeze(parsed.data);
}
