/**
 * Regenerates src/schema.d.ts from the OpenAPI document the API serves (`npm run client:generate`).
 * The document is built from the zod route schemas alone: the app is created over a runtime
 * that is never called, so no database is needed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { createApp } from '@canon/api';
import type { Runtime } from '@canon/runtime';

const here = path.dirname(fileURLToPath(import.meta.url));
const target = path.join(here, '..', 'src', 'schema.d.ts');

const app = createApp({} as Runtime);
const res = await app.request('/openapi.json');
if (!res.ok) throw new Error(`/openapi.json answered ${res.status}`);
const document = (await res.json()) as OpenAPI3;
const ast = await openapiTS(document, { alphabetize: true });
fs.writeFileSync(target, `${astToString(ast)}`);
console.log(`wrote ${path.relative(process.cwd(), target)}`);
