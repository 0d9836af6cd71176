import { request, type ClientRequest } from "node:http";

/**
 * The flood for share-flood.test.ts, in its own process so the flooding client does not share the server's
 * event loop: `<url> <token> <waves> <perWave>` opens waves × perWave `view.events` streams on their own
 * connections, prints `{"statuses":[…]}` once every one has its answer, and holds the admitted ones open
 * until its stdin closes.
 */
const [url = "", token = "", waves = "1", perWave = "1"] = process.argv.slice(2);
const input = encodeURIComponent(JSON.stringify({ token, lastEventId: "0" }));
const open: ClientRequest[] = [];

function openStream(): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${url}/api/share/view.events?input=${input}`, { agent: false, headers: { accept: "text/event-stream" } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    outgoing.on("error", reject);
    outgoing.end();
    open.push(outgoing);
  });
}

const statuses: number[] = [];
for (let wave = 0; wave < Number(waves); wave++) statuses.push(...(await Promise.all(Array.from({ length: Number(perWave) }, () => openStream()))));
process.stdout.write(`${JSON.stringify({ statuses })}\n`);
process.stdin.resume();
process.stdin.on("end", () => {
  for (const outgoing of open) outgoing.destroy();
  process.exit(0);
});
