export interface paths {
    "/v1/changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What compiles changed, after a cursor: a JSON page, or a live stream (server-sent events)
         * @description One event per memory whose view a compile changed (added, removed, value, status, dispute opened or closed; `erased` when an erasure changed it, without what it read before), in commit order, only what the key may see. With `Accept: text/event-stream`: the backlog, then each new change as it settles, as SSE events `change` whose `id` is the cursor (a reconnecting client resumes from `Last-Event-ID`), a comment every 15 s while quiet; the stream ends when the client goes or the server stops, or with an event `revoked` (a problem as its data) when its key is revoked or its user erased while it follows. Otherwise a JSON page `{changes, next}`: ask again with `after=next`.
         */
        get: {
            parameters: {
                query?: {
                    /** @description a cursor (`<tx>.<position>`) from `next` or an event id; absent: from the start */
                    after?: string;
                    /** @description changes per page (1–1000, default 100) */
                    limit?: string;
                    predicate?: string;
                    subject?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page (JSON) or the stream (text/event-stream) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            changes: components["schemas"]["ChangeEvent"][];
                            next: string;
                        };
                        "text/event-stream": string;
                    };
                };
                /** @description A malformed cursor, subject, predicate or limit */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, unknown or revoked key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/compile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Compile one subject, several, or all: synchronously, or as a job (`async: true` → 202 {job_id}) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        all?: true;
                        /** @default false */
                        async?: boolean;
                        subject?: string;
                        subjects?: string[];
                    };
                };
            };
            responses: {
                /** @description The compile result (one subject) or the summed results */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CompileResult"] | components["schemas"]["CompileManyResult"];
                    };
                };
                /** @description Queued; poll GET /v1/jobs/{job_id} */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            job_id: string;
                        };
                    };
                };
                /** @description Invalid request */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, unknown or revoked key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The key’s role cannot compile */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/conflicts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Open disagreements (memories holding two or more values now), with every side and its sources */
        get: {
            parameters: {
                query?: {
                    /** @description The `next` of the page before. */
                    after?: string;
                    limit?: number;
                    subject?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of open conflicts in subject and key order; `next` names the page after it, null at the end */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            conflicts: components["schemas"]["Conflict"][];
                            next: string | null;
                        };
                    };
                };
                /** @description Invalid query */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/connectors/{instance_id}/batches": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Append a connector batch and move the instance’s cursor, in one transaction
         * @description The episodes are appended as by POST /v1/episodes, with the key’s principal: its role’s standing, its user as the actor, and a connector’s source (`git`, `github`, `workspace`) only with a key bound to it (`canon keys create --source …`). In the same transaction the cursor moves from `expected` to `cursor`; if another run moved it since, 409 `cursor_moved` and nothing is stored: read the cursor again and resume from there.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The connector instance, URL-encoded: `workspace:<root id>`, `git:<repo id>`, `github:<owner>/<repo>` or any id of its own */
                    instance_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ConnectorBatch"];
                };
            };
            responses: {
                /** @description Every item stored or recognised, and the cursor saved */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ConnectorBatchResponse"];
                    };
                };
                /** @description Invalid instance id, body or items (`issues` names each item and why); nothing stored */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, unknown or revoked key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The key’s role cannot write, or it is not bound to a connector source an item names */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description `cursor_moved`: the cursor is no longer `expected`; or `key_conflict`: an idempotency key already names a different episode. Nothing stored */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than 5 MiB */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/connectors/{instance_id}/cursor": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The cursor of a connector instance in the key’s workspace, where its next run resumes */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The connector instance, URL-encoded: `workspace:<root id>`, `git:<repo id>`, `github:<owner>/<repo>` or any id of its own */
                    instance_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The cursor */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ConnectorCursor"];
                    };
                };
                /** @description Invalid instance id */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, unknown or revoked key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A context bundle of a subject for a task, within a token budget: same inputs at the same instant, same bytes
         * @description The memories holding at `as_of` (default: now, never printed), ranked by words shared with the task, then trigram similarity, then recency, then memory id; one line each until the next would pass `max_tokens`. Tokens are estimated as ceil(code points / 4) per line, newline included. Open disagreements are stated as `DISPUTED:` lines and listed in `conflicts`.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** Format: date-time */
                        as_of?: string;
                        max_tokens: number;
                        subject: string;
                        task: string;
                    };
                };
            };
            responses: {
                /** @description The bundle */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ContextBundle"];
                    };
                };
                /** @description Invalid request: missing task, max_tokens outside 1..100000, an invalid as_of, malformed JSON */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, unknown or revoked key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/episodes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Page the log in commit order
         * @description Never skips rows of transactions still in flight: `next` can be passed as `after` forever.
         */
        get: {
            parameters: {
                query?: {
                    /** @description The `next` of an earlier page: "<transaction>.<position>" */
                    after?: string;
                    limit?: number;
                    subject?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of episodes */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["EpisodePage"];
                    };
                };
                /** @description Invalid query */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, unknown or revoked key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Append one episode or a batch of up to 1,000 to the log
         * @description Per item: `created` or `duplicate` (same key, same envelope) with the episode id. Any invalid item or key conflict rejects the whole batch and stores nothing. Every string of every item is scanned for secrets first: each is replaced by `[redacted:<rule>:<hash>]` and listed in the item’s `redactions`, or, under the workspace policy `secrets: "refuse"`, the item is `refused` (one episode posted alone: 400 `secret_refused`) while the rest of the batch proceeds.
         */
        post: {
            parameters: {
                query?: {
                    compile?: "wait";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @default {} */
                        body?: {
                            claims?: {
                                conditions?: string[];
                                correction?: boolean;
                                /** Format: date-time */
                                effective_from?: string;
                                /** @enum {string} */
                                op?: "assert" | "retract" | "replace";
                                predicate: string;
                                qualifiers?: {
                                    [key: string]: string;
                                };
                                settles?: {
                                    idempotency_key: string;
                                    index: number;
                                    source: string;
                                }[];
                                text?: string;
                                value?: unknown;
                            }[];
                            text?: string;
                        } & {
                            [key: string]: unknown;
                        };
                        idempotency_key: string;
                        /** @default message */
                        kind?: string;
                        lineage?: string;
                        /** Format: date-time */
                        observed_at?: string;
                        /** Format: date-time */
                        occurred_at?: string;
                        /**
                         * @default workspace
                         * @enum {string}
                         */
                        scope?: "workspace" | "personal";
                        sequence?: number;
                        /** @default false */
                        snapshot?: boolean;
                        /** @default api */
                        source?: string;
                        source_ref?: string;
                        subject: string;
                    } | components["schemas"]["EpisodeBatch"];
                };
            };
            responses: {
                /** @description Every item stored or recognised */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["IngestResponse"];
                    };
                };
                /** @description Invalid items (`issues` names each item and why), or one episode posted alone that holds a secret in a workspace that refuses them (`secret_refused`, naming `rule` and `path`); nothing stored */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, unknown or revoked key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The key’s role cannot write */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description An idempotency key already names a different episode; nothing stored */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The body is larger than 5 MiB */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/erasures": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Erase a subject, or every episode a user wrote or owns (the subjects they touched are rebuilt from what remains) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ErasureTarget"];
                };
            };
            responses: {
                /** @description Erased; the audit row’s id */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Erasure"];
                    };
                };
                /** @description Invalid target */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Only an owner or a maintainer may erase */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Nothing to erase */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream the workspace's log as an export (NDJSON)
         * @description Owners and maintainers. Lines: a header (format `canon-export` 1, workspace, compiler version, selection), the workspace’s own policies (never its resolver), the erasure tombstones, every episode in commit order with its actor and times, then a manifest (counts, each subject’s `state_hash`, the digest of every line). The selected subjects are compiled first; the lines read one snapshot. A stream cut short has no manifest, and an import refuses it. `X-Canon-Episodes` gives the number of episodes to come.
         */
        get: {
            parameters: {
                query?: {
                    /** @description every subject (the default) */
                    all?: "true";
                    /** @description only this subject’s episodes (tombstones always travel) */
                    subject?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The export, one JSON object a line */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/x-ndjson": string;
                    };
                };
                /** @description Invalid query */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, unknown or revoked key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Only an owner or a maintainer may export */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such subject */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import an export (NDJSON) into this workspace
         * @description Owners only. Batches of 1,000 episodes, each in one transaction through the ingest path (validation, secrets redacted, pending compiles), keeping each episode’s actor and times. Duplicates stay duplicates; erased keys stay erased. A line that fails its hash or its checks is refused by number (400 `export_invalid`, `line`) and nothing of its batch is written; the last batch waits for the manifest, so a truncated body writes none of it (earlier batches stay: importing again is idempotent). Ends by compiling every subject of the manifest and comparing state hashes. Bounds: 1048576 bytes a line, 1073741824 bytes a body.
         */
        post: {
            parameters: {
                query?: {
                    /** @description this workspace states policies that differ from the export’s: import under this workspace’s anyway (otherwise 409 `policies_differ`) */
                    policies?: "keep";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/x-ndjson": string;
                };
            };
            responses: {
                /** @description Imported; per subject, its state_hash against the manifest’s */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ImportResult"];
                    };
                };
                /** @description A line that is not part of a whole, untouched export (`export_invalid`, naming `line`) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, unknown or revoked key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Only an owner may import */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description A key this workspace holds with other content (`key_conflict`, naming `line`); policies that differ (`policies_differ`); tombstones bound to another workspace id (`workspace_mismatch`) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description A line or the body is too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Not application/x-ndjson */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A compile job of this workspace */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    job_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The job */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Job"];
                    };
                };
                /** @description Not a job id */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such job in this workspace */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/dead": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Compile jobs of this workspace that exhausted their retries */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Dead letters */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            jobs: {
                                error?: unknown;
                                failed_at: string;
                                job_id: string;
                                subject: string;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/dead/redrive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Put this workspace’s dead letters back on the compile queue */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description How many moved */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            redriven: number;
                        };
                    };
                };
                /** @description The key’s role cannot redrive */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * State that two memories are one fact (or distinct): an episode of kind link, compiled at once
         * @description Linked keys fold as one memory under the smaller key, with the usual decision table across them; the other id still finds it. Per pair, the link of highest standing, then the latest, is in force: unlinking is a later `same: false`. Below member standing the link is a proposal.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Link"];
                };
            };
            responses: {
                /** @description Recorded (or, for a retried key, the committed result); the first memory after */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["LinkResult"];
                    };
                };
                /** @description Invalid link: unknown shape, the same memory twice, or memories of different subjects or scopes */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The key’s role cannot write */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such memory visible to this key */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The idempotency key names a different episode */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The subject is busy; retry after Retry-After seconds */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One memory: its timeline, evidence with source refs, decisions, revision and ETag */
        get: {
            parameters: {
                query?: {
                    /** @description valid time: the view of the timeline at this instant (default now, or known_at) */
                    as_of?: string;
                    /** @description transaction time: refold the claims ingested by this instant */
                    known_at?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The memory (refolded from what was ingested by known_at, if given) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Memory"];
                    };
                };
                /** @description Invalid instant */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such memory visible to this key (or none known at known_at) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** The same conditional change with `If-Match: "<etag>"` (required) instead of expected_revision */
        patch: {
            parameters: {
                query?: never;
                header: {
                    "if-match": string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Proposal"];
                };
            };
            responses: {
                /** @description Applied (or, for a retried key, the committed result); the memory after, with its ETag */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["MemoryWriteResult"];
                    };
                };
                /** @description Invalid proposal */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The key’s role cannot write */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such memory visible to this key */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The idempotency key names a different proposal */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Stale revision or ETag: `current` holds the memory as it is now */
                412: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The subject is busy; retry after Retry-After seconds */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/memories/{id}/proposals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A conditional change of a memory: stored as an episode and compiled at once, if the memory is still at expected_revision
         * @description A `value` equal to the current one with `conditions` enriches it; a different value is a change effective now (or at `effective_from`), or a correction with `correction: true`; `retract: true` ends the value. The fold still applies standing: the answer’s `decision` says what it made of the claim.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    "if-match"?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Proposal"];
                };
            };
            responses: {
                /** @description Applied (or, for a retried key, the committed result); the memory after, with its ETag */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["MemoryWriteResult"];
                    };
                };
                /** @description Invalid proposal */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The key’s role cannot write */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such memory visible to this key */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The idempotency key names a different proposal */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Stale revision or ETag: `current` holds the memory as it is now */
                412: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The subject is busy; retry after Retry-After seconds */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{id}/resolution": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resolve the conflict a memory holds: a correction episode naming the claims of every side it settles, compiled at once
         * @description Needs standing at least the policy’s minimum role and every side’s (403 otherwise); 409 when the memory holds no open conflict.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Resolution"];
                };
            };
            responses: {
                /** @description The memory after */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["MemoryWriteResult"];
                    };
                };
                /** @description Invalid resolution */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The key’s role lacks the standing to settle it */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such memory visible to this key */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The memory has no open conflict */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The subject is busy; retry after Retry-After seconds */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace’s predicate policies: its own statement, what compiles use, and their fingerprint */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Policies */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Policies"];
                    };
                };
            };
        };
        /**
         * Replace the workspace’s own policies (owner, maintainer); affected subjects are rebuilt
         * @description Affected: subjects holding memories of a predicate whose effective policy changed, or every subject when the defaults or the time zone changed. With a job queue they are queued for a compile (which rebuilds a subject compiled under another fingerprint); without one they are rebuilt before the answer.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["WorkspacePolicies"];
                };
            };
            responses: {
                /** @description Saved, with the rebuilds it set off */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PolicyChange"];
                    };
                };
                /** @description Invalid policies */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Only an owner or a maintainer may change policies */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * What compiling would change, without writing: under proposed policies, or (without them) under this build’s compiler
         * @description Folds the subjects the proposed policies can affect (every subject without a proposal) from the log alone, in one snapshot, and compares them with the memories stored now. Nothing is written. Owner or maintainer.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description proposed workspace policies, as PUT /v1/policies takes them */
                        policies?: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            responses: {
                /** @description The memories that would change and how */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Preview"];
                    };
                };
                /** @description Invalid policies */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Only an owner or a maintainer may preview a change */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rebuild": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Recompute a subject from its whole log; the same state_hash as incremental compiles */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        subject: string;
                    };
                };
            };
            responses: {
                /** @description The rebuild result */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CompileResult"];
                    };
                };
                /** @description Invalid request */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, unknown or revoked key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description The key’s role cannot rebuild */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedule": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The compile schedule of the key’s workspace (its own, or the default until its owner sets one) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The schedule */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CompileSchedule"];
                    };
                };
            };
        };
        /** Change the compile schedule of the key’s workspace (owner); other workspaces keep theirs */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CompileScheduleChange"];
                };
            };
            responses: {
                /** @description The schedule now */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CompileSchedule"];
                    };
                };
                /** @description Not a valid cron expression or time zone */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Only an owner may change it */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Lexical search over current memories: full-text (ranked), then near matches by trigram similarity
         * @description Ranking: full-text matches (`websearch_to_tsquery`, no stemming) by `ts_rank`, then near matches (typos) by pg_trgm word similarity, ties by memory id. Every candidate is re-checked against its memory’s timeline: a superseded or overruled value comes back only with `include_history=true`, marked `current: false`. `documents`: scanned files whose text matches (full-text, the version in force of each file only), with the best fragment (matched words between « and »): prose and code that state no fact are searchable there, not memories.
         */
        get: {
            parameters: {
                query: {
                    include_history?: "true" | "false";
                    limit?: number;
                    q: string;
                    subject?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Matching values, best first */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            documents: components["schemas"]["DocumentResult"][];
                            results: components["schemas"]["SearchResult"][];
                        };
                    };
                };
                /** @description Invalid query */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, unknown or revoked key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Episodes of the log that hold a detected secret (owner, maintainer)
         * @description Scans the stored log with the rules ingest uses — for episodes stored before redaction, or that older rules missed — reading at most `limit` episodes per answer in order; `next` resumes. Names each episode (id, source, key, subject) and each secret by rule and field, never its value. Erase what it finds with `POST /v1/erasures` or `DELETE /v1/subjects/{subject}`.
         */
        get: {
            parameters: {
                query?: {
                    after?: string;
                    limit?: number;
                    subject?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description What the scanned part of the log holds */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SecretScan"];
                    };
                };
                /** @description Invalid query or cursor */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Missing, unknown or revoked key */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Only an owner or a maintainer may scan for secrets */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/subjects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Subjects with episode, memory, pending and open-conflict counts */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Subjects */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            subjects: {
                                episodes: number;
                                memories: number;
                                open_conflicts: number;
                                pending: number;
                                subject: string;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/subjects/{subject}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Erase a subject: its episodes and everything derived, in one audited transaction; re-ingesting its keys answers `erased` */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    subject: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Erased; the audit row’s id */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Erasure"];
                    };
                };
                /** @description Invalid target */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Only an owner or a maintainer may erase */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Nothing to erase */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/subjects/{subject}/memories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Memories of a subject at an instant (now, or as_of), as known now or at known_at: status, current value(s), scheduled changes, conflicts
         * @description A page at a time, in key order: pass `next` as `after` until it is null.
         */
        get: {
            parameters: {
                query?: {
                    /** @description the `next` of the page before */
                    after?: string;
                    /** @description valid time: the view of the timeline at this instant (default now, or known_at) */
                    as_of?: string;
                    /** @description transaction time: refold the claims ingested by this instant */
                    known_at?: string;
                    /** @description at most this many memories (default 100) */
                    limit?: number;
                };
                header?: never;
                path: {
                    subject: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The view at that instant */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            as_of: string;
                            known_at: string | null;
                            memories: components["schemas"]["MemoryView"][];
                            next: string | null;
                            subject: string;
                        };
                    };
                };
                /** @description Invalid instant */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** For CI: compile, compile again expecting zeros, recompute from the log expecting the same state_hash */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        subject: string;
                    };
                };
            };
            responses: {
                /** @description The report; `ok: false` lists what differed */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description The key’s role cannot compile */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's webhooks with their deliveries, failures and dead letters (owner, maintainer) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The webhooks (never their secrets) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            webhooks: components["schemas"]["Webhook"][];
                        };
                    };
                };
                /** @description Only an owner or a maintainer may list webhooks */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Add a webhook: the change feed POSTed to a URL, signed (owner, maintainer)
         * @description Delivers each change the creating key may see (from now on, optionally of one subject or predicate) as the JSON of a `ChangeEvent`, with headers `Canon-Webhook-Id`, `Canon-Delivery` (the cursor), `Canon-Timestamp` (Unix seconds) and `Canon-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<body>" under the secret>`. A delivery that fails (no 2xx within the timeout) is retried with exponential backoff, then dead-lettered. The secret is in this answer only.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["WebhookInput"];
                };
            };
            responses: {
                /** @description Added */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            secret: string;
                            webhook: components["schemas"]["Webhook"];
                        };
                    };
                };
                /** @description Not an http(s) URL, or a host this server does not allow */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Only an owner or a maintainer may add a webhook */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a webhook; deliveries already queued are dropped (owner, maintainer) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    webhook_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Removed */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            removed: string;
                        };
                    };
                };
                /** @description Only an owner or a maintainer may remove a webhook */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description No such webhook in this workspace */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description A memory that may be this fact worded otherwise: shown, never applied (only a link merges). */
        Candidate: {
            /** @enum {string} */
            kind: "possible_contradiction" | "possible_duplicate" | "candidate";
            memory_id: string;
            /**
             * @description one side states what the other negates ("allowed on Fridays" / "no longer allowed on Fridays"); linked, the negation ends the value
             * @enum {boolean}
             */
            opposite?: true;
            other_values: unknown[];
            predicate: string;
            proposed?: {
                idempotency_key: string;
                reason: string;
                same: boolean;
                source: string;
            };
            qualifiers: {
                [key: string]: string;
            };
            reason: string;
            score: number;
            values: unknown[];
        };
        ChangeEvent: {
            after: {
                /** @enum {string} */
                status: "current" | "conflicted" | "tombstoned" | "scheduled_only" | "empty";
                values: unknown[];
            } | null;
            before: {
                /** @enum {string} */
                status: "current" | "conflicted" | "tombstoned" | "scheduled_only" | "empty";
                values: unknown[];
            } | null;
            /** @enum {string} */
            change: "added" | "removed" | "dispute_opened" | "dispute_closed" | "value" | "status" | "erased";
            changed_at: string;
            compile_run_id: string | null;
            /** @description its place in commit order; `after` (or the SSE `Last-Event-ID`) resumes behind it */
            cursor: string;
            episode_id: string | null;
            key: string;
            memory_id: string;
            predicate: string;
            /** @enum {string} */
            scope: "workspace" | "personal";
            subject: string;
        };
        ClaimDecision: {
            /** @description The claim’s index in its episode (the claims of a text are numbered as the compiler read them) */
            claim: number;
            /**
             * @description What the compile did with the claim: `supports` (its value holds), `changes`/`corrects` (it replaced the value in force), `disputes` (a conflict), `duplicate_of`, `enriches`, `settles`, `overruled`, `superseded_by`, `retracts`, `no_effect`
             * @enum {string}
             */
            kind: "supports" | "duplicate_of" | "enriches" | "changes" | "corrects" | "settles" | "superseded_by" | "overruled" | "disputes" | "retracts" | "no_effect";
            memory: components["schemas"]["MemoryView"];
            memory_id: string;
            reason: string;
            /** @description The claim it acted on, if any */
            target: {
                idempotency_key: string;
                index: number;
                source: string;
            } | null;
        };
        CompileManyResult: {
            /** @description Subjects whose compile failed, by name, with the error; every other subject was compiled (a job also dead-letters them). */
            failed: {
                error: string;
                subject: string;
            }[];
            results: components["schemas"]["CompileResult"][];
            subjects: number;
            totals: {
                [key: string]: number;
            };
        };
        CompileResult: {
            compiler_version: string;
            conflicts_opened: number;
            episodes_processed: number;
            memories_created: number;
            memories_superseded: number;
            memories_updated: number;
            state_hash: string;
            subject: string;
            tombstoned: number;
        };
        CompileSchedule: {
            cron: string;
            time_zone: string;
        } | null;
        CompileScheduleChange: {
            cron: string;
            /** @description IANA zone; without it the zone the schedule has stays (UTC when it has none) */
            time_zone?: string;
        };
        Conflict: {
            etag: string;
            key: string;
            /** @description the memory holding the disagreement; resolve it at POST /v1/memories/{id}/resolution */
            memory_id: string;
            /** @enum {boolean} */
            needs_verification: true;
            predicate: string;
            qualifiers: {
                [key: string]: string;
            };
            required_standing: number;
            revision: number;
            /** @enum {string} */
            scope: "workspace" | "personal";
            sides: {
                sources: {
                    idempotency_key: string;
                    index: number;
                    occurred_at: string;
                    /** @enum {string} */
                    role: "owner" | "maintainer" | "member" | "connector" | "agent" | "reader";
                    source: string;
                    source_ref: string | null;
                    text: string;
                }[];
                standing: number;
                valid_from: string;
                value?: unknown;
            }[];
            subject: string;
        };
        ConnectorBatch: {
            /** @description The cursor after this batch */
            cursor: unknown;
            /** @description Up to 1000 episodes, each as for POST /v1/episodes; none: only the cursor moves */
            episodes: unknown[];
            /** @description The cursor the run read or last saved (null: it read none) */
            expected: unknown;
        };
        ConnectorBatchResponse: components["schemas"]["IngestResponse"] & {
            /** @description Distinct subjects the batch created episodes of: what a compile must visit */
            subjects: string[];
        };
        ConnectorCursor: {
            /** @description As the connector wrote it (any JSON value); null: no batch committed yet, or the cursor was reset */
            cursor?: unknown;
            instance_id: string;
            workspace_id: string;
        };
        ContextBundle: {
            conflicts: {
                memory_id: string;
                predicate: string;
                qualifiers: {
                    [key: string]: string;
                };
                sides: {
                    sources: {
                        idempotency_key: string;
                        source: string;
                        source_ref: string | null;
                    }[];
                    value?: unknown;
                }[];
            }[];
            memory_ids: string[];
            possible_contradictions: {
                memory_ids: string[];
                reason: string;
                score: number;
                sides: {
                    memory_id: string;
                    predicate: string;
                    values: unknown[];
                }[];
            }[];
            text: string;
            tokens: number;
        };
        DocumentResult: {
            episode_id: string;
            occurred_at: string;
            rank: number;
            snippet: string;
            source: string;
            source_ref: string | null;
            subject: string;
        };
        Episode: {
            actor: {
                /** @enum {string} */
                role: "owner" | "maintainer" | "member" | "connector" | "agent" | "reader";
                user: string | null;
            };
            body: {
                [key: string]: unknown;
            };
            content_hash: string;
            /** Format: uuid */
            id: string;
            idempotency_key: string;
            ingested_at: string;
            kind: string;
            lineage: string;
            log_position: string;
            observed_at: string | null;
            occurred_at: string;
            occurred_at_defaulted: boolean;
            owner: string | null;
            /** @enum {string} */
            scope: "workspace" | "personal";
            sequence: number | null;
            snapshot: boolean;
            source: string;
            source_ref: string | null;
            subject: string;
            workspace_id: string;
        };
        EpisodeBatch: {
            episodes: {
                /** @default {} */
                body: {
                    claims?: {
                        conditions?: string[];
                        correction?: boolean;
                        /** Format: date-time */
                        effective_from?: string;
                        /** @enum {string} */
                        op?: "assert" | "retract" | "replace";
                        predicate: string;
                        qualifiers?: {
                            [key: string]: string;
                        };
                        settles?: {
                            idempotency_key: string;
                            index: number;
                            source: string;
                        }[];
                        text?: string;
                        value?: unknown;
                    }[];
                    text?: string;
                } & {
                    [key: string]: unknown;
                };
                idempotency_key: string;
                /** @default message */
                kind: string;
                lineage?: string;
                /** Format: date-time */
                observed_at?: string;
                /** Format: date-time */
                occurred_at?: string;
                /**
                 * @default workspace
                 * @enum {string}
                 */
                scope: "workspace" | "personal";
                sequence?: number;
                /** @default false */
                snapshot: boolean;
                /** @default api */
                source: string;
                source_ref?: string;
                subject: string;
            }[];
        };
        EpisodePage: {
            episodes: components["schemas"]["Episode"][];
            next: string | null;
        };
        Erasure: {
            episodes: number;
            erased_at: string;
            erasure_id: string;
            /** @description By user: the user's keys of the workspace, revoked and no longer naming them */
            keys_revoked: number;
            memories: number;
            /** @description By user: subjects touched that hold only that person's personal episodes, counted, not named */
            personal_subjects: number;
            rebuilt: {
                [key: string]: unknown;
            }[];
            /** @description The subjects erased, or touched by a user's erasure, that the caller may see */
            subjects: string[];
            /** @enum {string} */
            target_kind: "subject" | "user";
        };
        ErasureTarget: {
            subject: string;
        } | {
            user: string;
        };
        ImportResult: {
            created: number;
            duplicates: number;
            episodes: number;
            /** @description episodes whose key is erased here: not written */
            erased: number;
            from_workspace: string;
            lines: number;
            /** @description every subject’s state_hash equals the manifest’s */
            ok: boolean;
            /** @enum {string} */
            policies: "applied" | "same" | "kept" | "none";
            /** @description episodes written with a secret redacted that the export held as it was */
            redacted: number;
            /** @description episodes holding a secret this workspace refuses */
            refused: number;
            subjects: {
                /** @description the manifest’s state_hash */
                expected: string | null;
                ok: boolean;
                /** @description why it differs: the policies, the compiler version, episodes of this workspace’s own, keys erased here, … */
                reason?: string;
                /** @description the state_hash here, after the import’s compile */
                state_hash: string;
                subject: string;
            }[];
            tombstones: {
                added: number;
                read: number;
            };
            workspace: string;
        };
        IngestResponse: {
            /** @description With `?compile=wait`: the compile of each subject the batch wrote to */
            compiled?: components["schemas"]["CompileResult"][];
            created: number;
            duplicates: number;
            erased: number;
            items: {
                /** @description With `?compile=wait`, for a `created` or `duplicate` item: what the compile did with each of its claims */
                decisions?: components["schemas"]["ClaimDecision"][];
                /** Format: uuid */
                episode_id: string | null;
                index: number;
                /** @description For `refused`: the field it was in */
                path?: string;
                /** @description Secrets replaced by `[redacted:<rule>:<hash>]` before the item was hashed and stored; absent when none */
                redactions?: components["schemas"]["Redaction"][];
                /** @description For `refused`: the rule that found a secret */
                rule?: string;
                /**
                 * @description `erased`: the key was erased earlier (design §8); `refused`: the item held a secret and the workspace refuses secrets. Neither writes anything.
                 * @enum {string}
                 */
                status: "created" | "duplicate" | "erased" | "refused";
            }[];
            /** @description items stored with secrets replaced (each lists its `redactions`) */
            redacted: number;
            /** @description items refused for holding a secret (workspace policy `secrets: "refuse"`) */
            refused: number;
            /** @description Statements of the documents created (`kind: "document"`) that will give no fact, by reason: `ambiguous` (one version stating two values for one key), `unparsed` (a settings file its parser refused), `too_many`; absent when none */
            statements?: {
                [key: string]: number;
            };
        };
        Job: {
            completed_at?: string;
            created_at: string;
            error?: unknown;
            job_id: string;
            progress?: {
                done: number;
                total: number;
            };
            queue: string;
            result?: unknown;
            started_at?: string;
            /** @enum {string} */
            state: "created" | "retry" | "active" | "completed" | "cancelled" | "failed";
        };
        Link: {
            idempotency_key: string;
            /** @description two memory ids of one subject and scope (a key linked away is named by its own id) */
            memories: [
                string,
                string
            ];
            reason?: string;
            /** @description true: one fact; false: distinct facts (silences the candidate, and undoes an earlier link of the pair) */
            same: boolean;
        };
        LinkPolicy: {
            /**
             * @description the least role whose link is in force; below it a link is a proposal (default member)
             * @enum {string}
             */
            min_role: "owner" | "maintainer" | "member" | "connector" | "agent" | "reader";
        };
        LinkResult: {
            compiled: {
                [key: string]: unknown;
            } | null;
            episode_id: string;
            /** @description false below member standing: recorded and shown as a proposal, not applied */
            in_force: boolean;
            /** @description the two fact keys the link names, as stored */
            keys: string[];
            memory: components["schemas"]["Memory"];
            /** @enum {string} */
            outcome: "linked" | "unlinked" | "proposed" | "duplicate";
        };
        Memory: {
            etag: string;
            id: string;
            known_at?: string | null;
            revision: number;
            status: string;
            subject: string;
            timeline: components["schemas"]["Timeline"];
            view: components["schemas"]["MemoryView"];
        };
        /** @description The memory after the compile, as recall shows it */
        MemoryView: {
            candidates: components["schemas"]["Candidate"][];
            conflict: {
                sources: {
                    idempotency_key: string;
                    source: string;
                    source_ref: string | null;
                    text: string;
                }[];
                standing: number;
                value?: unknown;
            }[];
            current: {
                conditions: string[];
                evidence_count: number;
                /** @description the highest standing among the claims supporting the value */
                standing: number;
                valid_from: string;
                valid_to: string | null;
                value?: unknown;
            }[];
            etag: string;
            id: string;
            key: string;
            linked: string[];
            needs_verification: boolean;
            predicate: string;
            qualifiers: {
                [key: string]: string;
            };
            revision: number;
            scheduled: {
                conditions: string[];
                effective_from: string;
                value?: unknown;
            }[];
            /** @enum {string} */
            scope: "workspace" | "personal";
            /** @enum {string} */
            status: "current" | "conflicted" | "tombstoned" | "scheduled_only" | "empty";
            subject: string;
        };
        MemoryWriteResult: {
            compiled: {
                [key: string]: unknown;
            } | null;
            decision: {
                kind: string;
                reason: string;
                target: {
                    idempotency_key: string;
                    index: number;
                    source: string;
                } | null;
            } | null;
            episode_id: string;
            memory: components["schemas"]["Memory"];
            /** @enum {string} */
            outcome: "applied" | "duplicate";
        };
        Policies: {
            effective: {
                defaults: components["schemas"]["Policy"];
                links?: components["schemas"]["LinkPolicy"];
                predicates: {
                    [key: string]: components["schemas"]["Policy"];
                };
                time_zone: string;
            };
            fingerprint: string;
            own: components["schemas"]["WorkspacePolicies"];
            /**
             * @description what ingest does with a secret in this workspace
             * @enum {string}
             */
            secrets: "redact" | "refuse";
        };
        Policy: {
            /** @enum {string} */
            cardinality: "one" | "many";
            /** @description open sides of a dispute before further values become its evidence (default 8) */
            max_sides?: number;
            /** @enum {string} */
            min_role: "owner" | "maintainer" | "member" | "connector" | "agent" | "reader";
            /** @enum {string} */
            mode: "supersede" | "flag";
        };
        PolicyChange: components["schemas"]["Policies"] & {
            changed: boolean;
            rebuild: {
                /** @enum {string} */
                mode: "queued" | "compiled" | "none";
                results?: {
                    [key: string]: unknown;
                }[];
                subjects: string[];
            };
        };
        Preview: {
            as_of: string;
            /** @description memories that would change */
            changed: number;
            changes: {
                after: {
                    /** @enum {string} */
                    status: "current" | "conflicted" | "tombstoned" | "scheduled_only" | "empty";
                    values: unknown[];
                } | null;
                before: {
                    /** @enum {string} */
                    status: "current" | "conflicted" | "tombstoned" | "scheduled_only" | "empty";
                    values: unknown[];
                } | null;
                /** @enum {string} */
                change: "added" | "removed" | "dispute_opened" | "dispute_closed" | "value" | "status" | "history";
                key: string;
                memory_id: string;
                predicate: string;
                subject: string;
            }[];
            compiler_version: string;
            fingerprint: {
                now: string;
                proposed: string;
            };
            /** @description subjects folded that the key may see */
            subjects: number;
            /** @description more memories changed than `changes` lists (1,000) */
            truncated: boolean;
        };
        Problem: {
            detail: string;
            instance?: string;
            status: number;
            title: string;
            type: string;
        } & {
            [key: string]: unknown;
        };
        Proposal: {
            conditions?: string[];
            correction?: boolean;
            effective_from?: string;
            /** @description the revision read; or send If-Match with the ETag (required for a memory a link named: its revision can repeat after an unlink) */
            expected_revision?: number;
            idempotency_key: string;
            reason: string;
            retract?: boolean;
            value?: unknown;
        };
        Redaction: {
            /** @description the field, e.g. `body.text`, `body.claims.0.value`; an object key is `<object>.{}` */
            path: string;
            /** @description the rule that found the secret, e.g. `stripe`, `private-key` */
            rule: string;
        };
        Resolution: {
            idempotency_key?: string;
            reason: string;
            value?: unknown;
        };
        ResolverPolicy: {
            /**
             * Format: uuid
             * @description the id of this workspace's API key whose standing the resolver's answers carry (not above the caller's role)
             */
            key_id: string;
            /** @description default 5000 */
            timeout_ms?: number;
            /**
             * Format: uri
             * @description where Canon posts candidate pairs (canon-resolver/1); its host must be one the server allows (CANON_RESOLVER_HOSTS)
             */
            url: string;
        };
        SearchResult: {
            conditions: string[];
            current: boolean;
            key: string;
            /** @enum {string} */
            match: "text" | "near";
            memory_id: string;
            /** @enum {string} */
            memory_status: "current" | "conflicted" | "tombstoned" | "scheduled_only" | "empty";
            needs_verification: boolean;
            predicate: string;
            qualifiers: {
                [key: string]: string;
            };
            rank: number;
            /** @enum {string} */
            scope: "workspace" | "personal";
            similarity: number;
            subject: string;
            valid_from: string;
            valid_to: string | null;
            value?: unknown;
            /** @enum {string} */
            value_status: "in_force" | "superseded" | "overruled" | "disputed" | "retracted";
        };
        SecretFinding: {
            episode_id: string;
            /** @description as stored, with any secret it holds replaced by its marker */
            idempotency_key: string;
            log_position: string;
            /** @description each secret: the rule and the field — never the secret */
            secrets: components["schemas"]["Redaction"][];
            source: string;
            /** @description as stored, with any secret it holds replaced by its marker */
            subject: string;
        };
        SecretScan: {
            findings: components["schemas"]["SecretFinding"][];
            /** @description pass as `after` to go on; null at the end of the log */
            next: string | null;
            /** @description episodes read by this answer */
            scanned: number;
        };
        Timeline: {
            decisions: {
                claim: {
                    idempotency_key: string;
                    index: number;
                    source: string;
                };
                kind: string;
                reason: string;
                target: {
                    idempotency_key: string;
                    index: number;
                    source: string;
                } | null;
            }[];
            fact_key: {
                owner: string | null;
                predicate: string;
                qualifiers: {
                    [key: string]: string;
                };
                /** @enum {string} */
                scope: "workspace" | "personal";
                subject: string;
                workspace_id: string;
            };
            key: string;
            lineage_events: {
                [key: string]: unknown;
            }[];
            linked?: string[];
            memory_id: string;
            policy: {
                /** @enum {string} */
                cardinality: "one" | "many";
                max_sides?: number;
                /** @enum {string} */
                min_role: "owner" | "maintainer" | "member" | "connector" | "agent" | "reader";
                /** @enum {string} */
                mode: "supersede" | "flag";
            };
            revision: number;
            /** @enum {string} */
            status_hint: "in_force" | "conflicted" | "tombstoned" | "empty";
            values: {
                conditions: string[];
                ended_by: {
                    idempotency_key: string;
                    index: number | null;
                    kind: string;
                    source: string;
                } | null;
                evidence: {
                    correction: boolean;
                    effective_from: string;
                    idempotency_key: string;
                    index: number;
                    lineage: string;
                    occurred_at: string;
                    /** @enum {string} */
                    role: "owner" | "maintainer" | "member" | "connector" | "agent" | "reader";
                    source: string;
                    source_ref: string | null;
                    standing: number;
                    text: string;
                }[];
                standing: number;
                /** @enum {string} */
                status: "in_force" | "superseded" | "overruled" | "disputed" | "retracted";
                /** @enum {string|null} */
                superseded_by: "change" | "correction" | null;
                support: number;
                valid_from: string;
                valid_to: string | null;
                value?: unknown;
            }[];
        };
        Webhook: {
            /** @description false once that key is revoked: nothing more is delivered */
            active: boolean;
            /** @description how far deliveries are queued (a cursor of the feed) */
            after: string;
            created_at: string;
            /** @description deliveries that failed every retry (queue `webhook-dead`) */
            dead_letters: number;
            delivered: number;
            failed_attempts: number;
            id: string;
            /** @description the key whose view of the feed it delivers */
            key_id: string;
            last_attempt_at: string | null;
            last_delivered_at: string | null;
            last_error: string | null;
            predicate: string | null;
            subject: string | null;
            url: string;
        };
        WebhookInput: {
            predicate?: string;
            subject?: string;
            /** @description http or https, on a host the operator allows (CANON_WEBHOOK_HOSTS) */
            url: string;
        };
        WorkspacePolicies: {
            defaults?: components["schemas"]["Policy"];
            links?: components["schemas"]["LinkPolicy"];
            predicates?: {
                [key: string]: components["schemas"]["Policy"];
            };
            resolver?: components["schemas"]["ResolverPolicy"];
            /**
             * @description what ingest does with an item holding a secret: replace it by a marker (`redact`, the default) or reject the item (`refuse`). Not part of the fingerprint: it rebuilds nothing
             * @enum {string}
             */
            secrets?: "redact" | "refuse";
            time_zone?: string;
        } | null;
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
