import { randomBytes, scrypt } from "node:crypto";
import { promisify } from "node:util";
import { z } from "zod";
import { TOKEN_REPLACED_MESSAGE } from "../../auth/access-token.ts";
import type { ChangeChannel } from "./change-channel.ts";
import type { Database } from "./database.ts";

const scryptAsync = promisify(scrypt) as (password: string, salt: string, keyLength: number) => Promise<Buffer>;

/** How often a node asks whether its token is still the cluster's when no notice came (a notice missed while cut off). */
const DEFAULT_RECHECK_MS = 5_000;

export class AccessTokenReplacedError extends Error {
  override readonly name = "AccessTokenReplacedError";
  readonly code = "access_token_replaced";
}

/** This node's hold on the cluster's access token: `replaced` aborts once a node starts with another one. */
export type AccessTokenClaim = {
  /** Aborted (reason: an Error with TOKEN_REPLACED_MESSAGE) once the token this node holds is no longer the cluster's. */
  replaced: AbortSignal;
  /** Asks the database now (also done on every `access-token` notice and every `recheckMs`). */
  recheck(): Promise<void>;
  close(): void;
};

type ClaimOptions = { sql: Database; changes: ChangeChannel; token: string; now?: () => number; recheckMs?: number; onError?: (error: Error) => void };

/**
 * Records that this node starts with `token` as the cluster's access token (`cairn_access_tokens`: an scrypt hash
 * under a salt made once for the cluster, never the token). Changing `CAIRN_TOKEN` means starting nodes with the new
 * token: the first such node marks every other token replaced and tells the cluster (an `access-token` notice); a
 * node still holding a replaced token then refuses it (bearer requests, the `?token=` link) and ends the streams
 * opened with it. A token once replaced stays dead: a node started with it again stops at start, so a stale node
 * cannot bring an old (perhaps leaked) token back or take the cluster's token away from the new one.
 */
export async function claimAccessToken(options: ClaimOptions): Promise<AccessTokenClaim> {
  const { sql, changes } = options;
  const now = options.now ?? Date.now;
  const tokenHash = await hashAccessToken(sql, options.token);
  const replacedOthers = await sql.begin(async (transaction) => {
    // One claim at a time: two nodes starting with two new tokens cannot both replace each other's.
    await transaction`lock table cairn_access_tokens in exclusive mode`;
    const [mine] = await transaction`select replaced_at from cairn_access_tokens where token_hash = ${tokenHash}`;
    const replacedAt = mine === undefined ? null : z.object({ replaced_at: z.coerce.number().nullable() }).parse(mine).replaced_at;
    if (replacedAt !== null)
      throw new AccessTokenReplacedError(
        `This CAIRN_TOKEN was replaced by a newer one on ${new Date(replacedAt).toISOString()}: start this node with the cluster's current token.`,
      );
    const at = now();
    const replaced = await transaction`update cairn_access_tokens set replaced_at = ${at} where replaced_at is null and token_hash <> ${tokenHash}`;
    await transaction`insert into cairn_access_tokens (token_hash, claimed_at) values (${tokenHash}, ${at}) on conflict (token_hash) do nothing`;
    return replaced.count;
  });
  if (replacedOthers > 0) await changes.publish({ kind: "access-token" }).catch((error: unknown) => options.onError?.(error as Error));

  const controller = new AbortController();
  let checking: Promise<void> | undefined;
  const check = async () => {
    const [row] = await sql`select replaced_at from cairn_access_tokens where token_hash = ${tokenHash}`;
    const replacedAt = row === undefined ? null : z.object({ replaced_at: z.coerce.number().nullable() }).parse(row).replaced_at;
    if (replacedAt !== null && !controller.signal.aborted) controller.abort(new Error(TOKEN_REPLACED_MESSAGE));
  };
  const recheck = (): Promise<void> => {
    if (controller.signal.aborted) return Promise.resolve();
    // A lookup that fails (the database away) keeps the token; the next notice or tick asks again.
    checking ??= check()
      .catch((error: unknown) => options.onError?.(error as Error))
      .finally(() => {
        checking = undefined;
      });
    return checking;
  };
  const stopListening = changes.subscribe((change) => {
    if (change.kind === "access-token") void recheck();
  });
  const timer = setInterval(() => void recheck(), options.recheckMs ?? DEFAULT_RECHECK_MS);
  timer.unref();
  return {
    replaced: controller.signal,
    recheck,
    close() {
      clearInterval(timer);
      stopListening();
    },
  };
}

/** scrypt of the token under the cluster's salt (made by the first node that asks, kept in `cairn_cluster_names`). */
async function hashAccessToken(sql: Database, token: string): Promise<string> {
  const made = randomBytes(16).toString("base64url");
  await sql`insert into cairn_cluster_names (name, value) values ('access_token_salt', ${made}) on conflict (name) do nothing`;
  const [row] = await sql`select value from cairn_cluster_names where name = 'access_token_salt'`;
  const salt = z.object({ value: z.string() }).parse(row).value;
  return (await scryptAsync(token, salt, 32)).toString("base64url");
}
