import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { readJsonl } from '../jsonl.js';

/**
 * The document-extraction dataset (bench/eval/extraction/README.md): real files read from the
 * installed node_modules, and the facts a careful reader expects from each. The files are data;
 * this module only reads and checks them.
 */
export const FORMATS = ['markdown', 'package.json', 'json', 'jsonc', 'yaml', 'ini', 'dotenv', 'text'] as const;
export type ExtractionFormat = (typeof FORMATS)[number];

export const ExtractionFile = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+$/),
  /** Relative to the repository root, always under node_modules/. */
  path: z.string().startsWith('node_modules/'),
  package: z.string().min(1),
  version: z.string().min(1),
  license: z.string().min(1),
  format: z.enum(FORMATS),
  /** a and b may be looked at while developing; c is held out. */
  split: z.enum(['a', 'b', 'c']),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type ExtractionFile = z.infer<typeof ExtractionFile>;

const Scalar = z.union([z.string(), z.number(), z.boolean()]);
export const ExpectedValue = z.union([Scalar, z.array(Scalar)]);
export type ExpectedValue = z.infer<typeof ExpectedValue>;

export const ExpectedFact = z.strictObject({
  file: z.string().min(1),
  /** The path of names the fact is recalled by: key path, or heading path then item. */
  key: z.array(z.string().min(1)).min(1),
  value: ExpectedValue,
});
export type ExpectedFact = z.infer<typeof ExpectedFact>;

export interface DatasetFile extends ExtractionFile {
  /** Absolute path of the file as installed. */
  absolutePath: string;
  expected: ExpectedFact[];
}

export const DATASET_DIR = path.dirname(fileURLToPath(import.meta.url));


/**
 * Loads files.jsonl and expected.jsonl, and checks each listed file against the installed
 * node_modules under `root` (the repository root). A missing file or a changed hash throws:
 * the expectations were written for those exact bytes.
 */
export function loadExtractionDataset(root: string, dir: string = DATASET_DIR): DatasetFile[] {
  const files = readJsonl(path.join(dir, 'files.jsonl'), ExtractionFile);
  const facts = readJsonl(path.join(dir, 'expected.jsonl'), ExpectedFact);

  const byId = new Map<string, DatasetFile>();
  for (const f of files) {
    if (byId.has(f.id)) throw new Error(`files.jsonl: duplicate id ${f.id}`);
    const absolutePath = path.resolve(root, f.path);
    if (!fs.existsSync(absolutePath)) {
      throw new Error(`${f.id}: ${f.path} is not installed (run npm ci from the repository root)`);
    }
    const sha = createHash('sha256').update(fs.readFileSync(absolutePath)).digest('hex');
    if (sha !== f.sha256) {
      throw new Error(
        `${f.id}: ${f.path} has sha256 ${sha}, expected ${f.sha256}: it is not the file from ` +
          `${f.package}@${f.version} the expected facts were written for (reinstall with npm ci)`,
      );
    }
    byId.set(f.id, { ...f, absolutePath, expected: [] });
  }

  const seen = new Set<string>();
  for (const fact of facts) {
    const file = byId.get(fact.file);
    if (!file) throw new Error(`expected.jsonl: fact for unknown file ${fact.file}`);
    const k = JSON.stringify([fact.file, fact.key]);
    if (seen.has(k)) throw new Error(`expected.jsonl: duplicate key ${fact.key.join(' > ')} in ${fact.file}`);
    seen.add(k);
    file.expected.push(fact);
  }
  return [...byId.values()];
}
