import type { DocumentFormat } from './statement.js';

const CODE = new Set([
  'ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'py', 'pyi', 'go', 'rs', 'java', 'kt', 'kts', 'scala', 'groovy', 'gradle',
  'c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'hh', 'hxx', 'cs', 'fs', 'vb', 'rb', 'php', 'swift', 'm', 'mm', 'sh', 'bash', 'zsh', 'fish',
  'ps1', 'psm1', 'bat', 'cmd', 'sql', 'lua', 'pl', 'pm', 'r', 'dart', 'ex', 'exs', 'erl', 'hrl', 'hs', 'ml', 'mli', 'clj', 'cljs',
  'elm', 'nim', 'zig', 'v', 'sol', 'vue', 'svelte', 'astro', 'css', 'scss', 'sass', 'less', 'styl', 'html', 'htm', 'xhtml', 'map',
  'wasm', 'wat', 'proto', 'graphql', 'gql', 'tf', 'hcl', 'nix', 'jl', 'f90', 'asm', 's', 'vim', 'el', 'lisp', 'scm', 'rkt',
]);

const LOCKFILES = new Set([
  'package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lock', 'cargo.lock', 'poetry.lock', 'pipfile.lock',
  'uv.lock', 'go.sum', 'composer.lock', 'gemfile.lock', 'flake.lock', 'pdm.lock', 'mix.lock', 'pubspec.lock', 'packages.lock.json',
]);

/** JSON files that editors and tools read with comments and trailing commas allowed. */
const JSONC_NAMES = /^(?:tsconfig(?:\..+)?\.json|jsconfig(?:\..+)?\.json|\.eslintrc(?:\.json)?|\.babelrc(?:\.json)?|devcontainer\.json|\.devcontainer\.json|deno\.json|turbo\.json|biome\.json|\.swcrc|api-extractor\.json|settings\.json|extensions\.json|launch\.json|tasks\.json)$/;

/** Files with no extension that are prose, not code. */
const TEXT_NAMES = /^(?:readme|changelog|changes|history|news|license|licence|copying|notice|authors|contributors|maintainers|codeowners|todo|security|support)$/;

/**
 * The extractor a document is read with, chosen by its file name and, when that says nothing,
 * its content. No path (a document posted through the API): JSON when the text parses as an
 * object, else Markdown, which reads plain text too.
 */
export function documentFormat(path: string | undefined, text: string): DocumentFormat {
  if (path === undefined || path === '') return sniff(text);
  const name = (path.split('/').pop() ?? path).toLowerCase();
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot + 1) : '';
  const stem = dot > 0 ? name.slice(0, dot) : name;
  if (LOCKFILES.has(name)) return 'lockfile';
  if (name === 'package.json') return 'package.json';
  if (name === 'pyproject.toml') return 'pyproject.toml';
  if (name === 'go.mod') return 'go.mod';
  if (name === 'dockerfile' || name.startsWith('dockerfile.') || ext === 'dockerfile' || name === 'containerfile') return 'dockerfile';
  if (/^requirements(?:[-_.][\w.-]*)?\.(?:txt|in)$/.test(name)) return 'requirements.txt';
  if (name === '.env' || name.startsWith('.env.') || ext === 'env') return 'dotenv';
  if (JSONC_NAMES.test(name) || ext === 'jsonc' || ext === 'json5') return 'jsonc';
  if (ext === 'json' || ext === 'webmanifest') return 'json';
  if (ext === 'yaml' || ext === 'yml') return 'yaml';
  if (ext === 'toml') return 'toml';
  if (ext === 'ini' || ext === 'cfg' || ext === 'properties' || name === '.editorconfig' || name === '.gitconfig' || name === '.npmrc') return 'ini';
  if (ext === 'md' || ext === 'markdown' || ext === 'mdx' || ext === 'mdown' || ext === 'mkd') return 'markdown';
  if (ext === 'txt' || ext === 'text' || ext === 'rst' || ext === 'adoc') return 'text';
  if (CODE.has(ext)) return 'code';
  // Tool settings with no extension (`.nycrc`, `.prettierrc`, `.mocharc`): JSON or YAML inside.
  if (ext === '' && /^\.[\w-]+rc$/.test(name)) return sniffSettings(text);
  if (ext === '' || TEXT_NAMES.test(stem)) return TEXT_NAMES.test(stem) ? 'text' : shebang(text) ? 'code' : 'other';
  return 'other';
}

function shebang(text: string): boolean {
  return text.startsWith('#!');
}

function sniffSettings(text: string): DocumentFormat {
  return /^\s*[{[]/.test(text) ? 'jsonc' : 'yaml';
}

function sniff(text: string): DocumentFormat {
  const head = text.trimStart();
  if (head.startsWith('{')) {
    try {
      JSON.parse(text);
      return 'json';
    } catch {
      // Not JSON after all: read as text.
    }
  }
  return 'markdown';
}
