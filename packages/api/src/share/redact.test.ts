import { describe, expect, it } from "vitest";
import { createRedactor, maskSecret } from "./redact.ts";
import { secretEnvironmentValues } from "./env-secrets.ts";
import { generateShareToken } from "./share-token.ts";

/** Deterministic random-looking characters, so no real-looking secret sits in the source as one literal. */
function chars(length: number, seed: number, alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"): string {
  let state = seed;
  let out = "";
  for (let index = 0; index < length; index++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    out += alphabet[state % alphabet.length];
  }
  return out;
}
const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const b64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

const ACCESS_TOKEN = chars(43, 99, b64url);
const ENV_SECRET = `db-${chars(24, 98)}`;
const redactor = createRedactor({
  extraSecrets: [
    { kind: "cairn-access-token", value: ACCESS_TOKEN },
    ...secretEnvironmentValues({ DATABASE_PASSWORD: ENV_SECRET, PATH: "/usr/bin:/bin", LANG: "C.UTF-8" }),
  ],
  workspaceRoot: "/srv/projects/app",
  homeDir: "/home/alice",
});

const pem = (label: string) => `-----BEGIN ${label}-----\n${chars(64, 7, b64)}\n${chars(64, 8, b64)}\n-----END ${label}-----`;

/** [description, text, the secret that must disappear, the kind it is reported as] */
const SECRETS: [string, string, string, string][] = [
  ["Anthropic key", `key: sk-ant-api03-${chars(93, 1, b64url)}AA`, `sk-ant-api03-${chars(93, 1, b64url)}AA`, "anthropic-key"],
  ["Anthropic admin key", `sk-ant-admin01-${chars(93, 2, b64url)}AA`, chars(93, 2, b64url), "anthropic-key"],
  ["OpenAI project key", `client = OpenAI(api_key=sk-proj-${chars(120, 3, b64url)})`, chars(120, 3, b64url), "openai-key"],
  ["OpenAI legacy key", `sk-${chars(20, 4)}T3BlbkFJ${chars(20, 5)}`, `T3BlbkFJ${chars(20, 5)}`, "openai-key"],
  ["AWS access key id", `aws_access_key_id = AKIA${chars(16, 6, upper)}`, `AKIA${chars(16, 6, upper)}`, "aws-access-key-id"],
  ["AWS temporary key id", `"AccessKeyId": "ASIA${chars(16, 7, upper)}"`, `ASIA${chars(16, 7, upper)}`, "aws-access-key-id"],
  ["AWS secret key", `aws_secret_access_key = ${chars(40, 8, b64)}`, chars(40, 8, b64), "aws-secret-key"],
  ["GitHub classic PAT", `git clone https://ghp_${chars(36, 9)}@github.com/o/r`, `ghp_${chars(36, 9)}`, "github-token"],
  ["GitHub OAuth token", `gho_${chars(36, 10)}`, chars(36, 10), "github-token"],
  ["GitHub app token", `GH=ghs_${chars(36, 11)}`, chars(36, 11), "github-token"],
  ["GitHub user-to-server token", `ghu_${chars(36, 12)}`, chars(36, 12), "github-token"],
  ["GitHub fine-grained PAT", `github_pat_${chars(22, 13)}_${chars(59, 14)}`, chars(59, 14), "github-token"],
  ["GitLab PAT", `glpat-${chars(20, 15, b64url)}`, chars(20, 15, b64url), "gitlab-token"],
  ["Slack bot token", `xoxb-${chars(12, 16, "0123456789")}-${chars(13, 17, "0123456789")}-${chars(24, 18)}`, chars(24, 18), "slack-token"],
  ["Slack user token", `xoxp-${chars(12, 19, "0123456789")}-${chars(24, 20)}`, chars(24, 20), "slack-token"],
  ["Stripe live secret key", `stripe.api_key = "sk_live_${chars(24, 21)}"`, chars(24, 21), "stripe-key"],
  ["Stripe restricted key", `rk_live_${chars(24, 22)}`, chars(24, 22), "stripe-key"],
  ["Google API key", `AIza${chars(35, 23, b64url)}`, chars(35, 23, b64url), "google-api-key"],
  ["npm token", `//registry.npmjs.org/:_authToken=npm_${chars(36, 24)}`, chars(36, 24), "npm-token"],
  ["JWT", `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${chars(43, 25, b64url)}`, chars(43, 25, b64url), "jwt"],
  ["Bearer header", `curl -H "Authorization: Bearer ${chars(40, 26, b64url)}" https://api.example.com`, chars(40, 26, b64url), "authorization-header"],
  ["Basic auth header", `Authorization: Basic ${chars(28, 27, b64)}=`, chars(28, 27, b64), "authorization-header"],
  ["bare bearer token", `token_type Bearer ${chars(32, 28)}`, chars(32, 28), "bearer-token"],
  ["credentials in a URL", `DATABASE_URL=postgres://app:${chars(16, 29)}@db.internal:5432/app`, chars(16, 29), "url-credentials"],
  ["RSA private key", `here:\n${pem("RSA PRIVATE KEY")}\nend`, chars(64, 7, b64), "private-key"],
  ["OpenSSH private key", pem("OPENSSH PRIVATE KEY"), chars(64, 8, b64), "private-key"],
  ["PKCS8 key cut off", `-----BEGIN PRIVATE KEY-----\n${chars(64, 30, b64)}`, chars(64, 30, b64), "private-key"],
  [".env password", `DB_PASSWORD=${chars(14, 31)}`, chars(14, 31), "secret-assignment"],
  [".env exported token", `export SERVICE_TOKEN="${chars(18, 32)}"`, chars(18, 32), "secret-assignment"],
  [".env API key in YAML", `OPENWEATHER_API_KEY: ${chars(32, 33, "0123456789abcdef")}`, chars(32, 33, "0123456789abcdef"), "secret-assignment"],
  ["JSON password field", `{"password": "${chars(12, 34)}"}`, chars(12, 34), "secret-assignment"],
  ["Python client_secret", `client_secret = '${chars(30, 35)}'`, chars(30, 35), "secret-assignment"],
  ["Cairn access token", `open http://127.0.0.1:3000/?token=${ACCESS_TOKEN}`, ACCESS_TOKEN, "cairn-access-token"],
  ["a secret environment value", `connected with ${ENV_SECRET} ok`, ENV_SECRET, "env-secret"],
];

const SHARE_TOKEN = generateShareToken();

/** Text that resembles a secret and must come through untouched (paths aside). */
const LOOKALIKES: [string, string][] = [
  ["sk- in prose", "Use scikit-learn (sk-learn) and the sk-1 preset; sk-this-is-prose-not-a-key."],
  ["git SHA", "commit 3f786850e387550fdab836ed7e6dc881de23001b"],
  ["short git SHA", "HEAD is now at 3f78685 fix the parser"],
  ["UUID", "session 0b6f2a5e-9b1c-4f2e-8f3a-6d2c1e0a9b7c"],
  ["empty PASSWORD=", "PASSWORD=\nSECRET="],
  ["placeholder assignments", "API_KEY=${API_KEY}\nGITHUB_TOKEN=$GITHUB_TOKEN\nDB_PASSWORD=<your-password>\nSECRET_KEY=changeme"],
  ["token as a word", "The token count was 512 tokens; refresh the token later."],
  ["lowercase code assignment", "const token = getToken(); let password = readPassword(prompt);"],
  ["CSS hex colours", "color: #ff00aa; background: #1e1e1e; border-color: #AABBCC;"],
  ["npm integrity hash", '"integrity": "sha512-z0/8Ws9i4nrJVvpSLIpPKybkx4uHxu2Ts7F5QBrOcdqN+aZfHQCCZbrlDTlh0U9cdH1uJt/8t1hbsGIKp3DfSw=="'],
  ["SHA-256 digest", "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"],
  ["base64 image block", ""],
  ["AWS docs-like word", "AKIA is the prefix of AWS access key ids; ASIA of temporary ones."],
  ["public key", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----"],
  ["certificate", "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n-----END CERTIFICATE-----"],
  ["URL without password", "https://user@example.com/path and git@github.com:org/repo.git and http://localhost:3000/a@b"],
  ["URL with template password", "postgres://app:${DB_PASS}@localhost/app"],
  ["names that say where a secret lives", "GITHUB_TOKEN_PATH=/etc/cairn/token\nAPI_KEY_HEADER=X-Api-Key\nSECRET_NAME=prod-db"],
  ["Bearer in prose", "Send it as a Bearer token in the Authorization header."],
  ["eyJ that is not a JWT", "eyJhbGciOiJub25lIn0 alone is just base64 of a JSON header"],
  ["long identifier", "const thisIsAVeryLongIdentifierName_withNumbers123 = 1;"],
  ["xox in a word", "the xoxo ending and xoxb- without a body"],
  ["hex API response id", "request-id: req_011CSHr6VBAf8hWwHQ3gTy8e msg_01XFDUDYJgAACzvnptvVoYEL"],
  ["Stripe publishable key", `pk_live_${chars(24, 40)}`],
  ["sha1 in package-lock", '"resolved": "https://registry.npmjs.org/zod/-/zod-4.6.7.tgz", "sha1": "da39a3ee5e6b4b0d3255bfef95601890afd80709"'],
];

describe("the share redactor: secrets that must go", () => {
  it("has a corpus of at least 20 secret shapes", () => {
    expect(new Set(SECRETS.map(([name]) => name)).size).toBeGreaterThanOrEqual(20);
  });

  for (const [name, text, secret, kind] of SECRETS) {
    it(`redacts ${name}`, () => {
      const { text: out, hits } = redactor.redactText(text);
      expect(out).not.toContain(secret);
      expect(out).toContain(`[REDACTED:${kind}]`);
      expect(hits.map((hit) => hit.kind)).toContain(kind);
      for (const hit of hits) expect(hit.preview).not.toContain(secret);
    });
  }

  it("redacts Cairn share tokens", () => {
    const { text } = redactor.redactText(`share it: http://host/share/${SHARE_TOKEN}`);
    expect(text).not.toContain(SHARE_TOKEN);
    expect(text).toContain("[REDACTED:cairn-share-token]");
  });

  it("keeps the name of an assignment and drops only its value", () => {
    expect(redactor.redactText(`DB_PASSWORD=${chars(14, 31)}`).text).toBe("DB_PASSWORD=[REDACTED:secret-assignment]");
    expect(redactor.redactText(`API_KEY=sk-ant-api03-${chars(40, 50, b64url)}`).text).toBe("API_KEY=[REDACTED:anthropic-key]");
  });
});

describe("the share redactor: look-alikes that must stay", () => {
  it("has a corpus of at least 20 look-alikes", () => {
    expect(LOOKALIKES.length).toBeGreaterThanOrEqual(20);
  });

  for (const [name, text] of LOOKALIKES) {
    if (text === "") continue;
    it(`leaves ${name} alone`, () => {
      const { text: out, hits } = redactor.redactText(text);
      expect(hits).toEqual([]);
      expect(out).toBe(text);
    });
  }

  it("leaves the base64 data of an image block alone, and redacts the text beside it", () => {
    // Random base64 may contain key-like runs; an image is never shown as text.
    const data = `AKIA${chars(16, 41, upper)}${chars(2000, 42, b64)}`;
    const message = {
      role: "user",
      content: [
        { type: "image", source: { type: "base64", media_type: "image/png", data } },
        { type: "text", text: `the key is AKIA${chars(16, 43, upper)}` },
      ],
    };
    const { value, hits } = redactor.redactValue(message);
    expect(value.content[0]).toEqual(message.content[0]);
    expect(value.content[1]).toEqual({ type: "text", text: "the key is [REDACTED:aws-access-key-id]" });
    expect(hits).toHaveLength(1);
  });
});

describe("the share redactor: paths and values", () => {
  it("shows workspace paths relative to the workspace and the home directory as ~", () => {
    const { text, hits } = redactor.redactText("Read /srv/projects/app/src/main.ts, cwd /srv/projects/app, also /srv/projects/app2/x and /home/alice/.npmrc");
    expect(text).toBe("Read ./src/main.ts, cwd ., also /srv/projects/app2/x and ~/.npmrc");
    expect(hits).toEqual([]);
  });

  it("walks messages: content blocks, tool inputs and outputs, file names; keys and numbers stay", () => {
    const secret = `ghp_${chars(36, 60)}`;
    const message = {
      type: "assistant",
      uuid: "0b6f2a5e-9b1c-4f2e-8f3a-6d2c1e0a9b7c",
      message: {
        content: [
          { type: "thinking", thinking: `found ${secret}`, signature: "EqQBCkYIBxgCKkCsig" },
          { type: "tool_use", id: "toolu_01", name: "Write", input: { file_path: "/srv/projects/app/.env", content: `GITHUB_TOKEN=${secret}\n` } },
        ],
        usage: { input_tokens: 12 },
      },
      toolUseResult: { filePath: "/srv/projects/app/.env", lines: [`token ${secret}`] },
    };
    const { value, hits } = redactor.redactValue(message);
    const serialized = JSON.stringify(value);
    expect(serialized).not.toContain(secret);
    expect(serialized).not.toContain("/srv/projects/app");
    expect(value.message.content[1]).toMatchObject({ input: { file_path: "./.env", content: "GITHUB_TOKEN=[REDACTED:github-token]\n" } });
    expect(value.message.content[0]).toMatchObject({ signature: "EqQBCkYIBxgCKkCsig" });
    expect(value.message.usage.input_tokens).toBe(12);
    expect(value.uuid).toBe(message.uuid);
    expect(hits).toHaveLength(3);
  });

  it("masks previews so they identify a secret without revealing it", () => {
    const secret = `sk-ant-api03-${chars(60, 61, b64url)}Xy`;
    const preview = maskSecret(secret);
    expect(preview).toBe("sk-ant-…Xy");
    expect(maskSecret("hunter22")).toBe("hu…");
    expect(maskSecret(pem("RSA PRIVATE KEY"))).toBe("-----BEGIN RSA PRIVATE KEY-----…");
  });

  it("ignores exact secrets too short to be safe to replace, and picks secret-looking environment values only", () => {
    const env = secretEnvironmentValues({
      ANTHROPIC_API_KEY: "sk-ant-short-but-long-enough",
      GITHUB_TOKEN: "short",
      SSH_AUTH_SOCK: "/tmp/ssh-agent.sock",
      SESSION_SECRET: "a-very-secret-value",
      HOME: "/home/alice",
      EDITOR: "vim-with-a-long-name",
      NODE_AUTH_TOKEN_PATH: "relative-but-a-path",
      MAX_TOKENS: "100000000",
    });
    expect(env.map((entry) => entry.value)).toEqual(["sk-ant-short-but-long-enough", "a-very-secret-value"]);
    const tiny = createRedactor({ extraSecrets: [{ kind: "x", value: "abc" }] });
    expect(tiny.redactText("abc abc").text).toBe("abc abc");
  });
});

describe("the share redactor on pathological input", () => {
  it("stays linear: no pattern backtracks quadratically on long runs", () => {
    const cases: Record<string, string> = {
      upper: "A".repeat(200_000),
      "secret word repeated": "PASSWORD".repeat(25_000),
      "assignments without values": "PASSWORD=".repeat(20_000),
      "dashed words": `sk-${"a-".repeat(100_000)}`,
      "scheme-like run": `http://${"a:".repeat(100_000)}`,
      "unterminated keys": "-----BEGIN PRIVATE KEY-----\n".repeat(5_000),
      "bearer words": "Bearer ".repeat(30_000),
      "open quote": `password: "${"x".repeat(200_000)}`,
      "JWT-like halves": `eyJ${"a".repeat(100_000)}.eyJ${"b".repeat(100_000)}`,
    };
    for (const [name, text] of Object.entries(cases)) {
      const started = performance.now();
      redactor.redactText(text);
      expect({ name, slow: performance.now() - started > 1_500 }).toEqual({ name, slow: false });
    }
  });
});
