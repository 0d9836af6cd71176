import type { IncomingMessage, ServerResponse } from "node:http";

type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** Seconds a client is told to wait before asking again while the server starts. */
const RETRY_AFTER_SECONDS = 1;

/** A page that reloads itself: a browser opened early lands on the IDE once it is up, with its address (and token) intact. */
const STARTING_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="${RETRY_AFTER_SECONDS}"><title>Cairn is starting</title></head>
<body style="font-family: system-ui, sans-serif; margin: 3rem"><p>Cairn is starting… this page reloads by itself.</p></body></html>
`;

/**
 * The server's one `request` listener, attached before the port opens. Until `open` is called every request is
 * answered at once with 503 and `Retry-After` (a self-reloading page for browsers): a request with no listener
 * would never be answered, not even once the server is ready. A request under a foreign host name gets 403, as
 * it would later.
 */
export class StartupGate {
  private handler: RequestHandler | undefined;
  private allowsHost: (header: string | undefined) => boolean = () => true;

  readonly listener: RequestHandler = (request, response) => {
    if (this.handler) {
      this.handler(request, response);
      return;
    }
    answerStarting(request, response, this.allowsHost(request.headers.host));
  };

  /** Host names to answer while starting (known once the port is). */
  restrictHosts(allowsHost: (header: string | undefined) => boolean): void {
    this.allowsHost = allowsHost;
  }

  /** The server is ready: every request from now on goes to `handler`. */
  open(handler: RequestHandler): void {
    this.handler = handler;
  }
}

function answerStarting(request: IncomingMessage, response: ServerResponse, hostAllowed: boolean): void {
  // Drain the body: an unread body would otherwise break the next request on a kept-alive connection.
  request.resume();
  const headers = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer" };
  if (!hostAllowed) {
    response.writeHead(403, { ...headers, "Content-Type": "text/plain; charset=utf-8", Connection: "close" });
    response.end("403 Forbidden: this host name is not allowed; an administrator can add it with --allowed-host\n");
    return;
  }
  const wantsPage = (request.method === "GET" || request.method === "HEAD") && (request.headers.accept ?? "").includes("text/html");
  response.writeHead(503, {
    ...headers,
    "Retry-After": String(RETRY_AFTER_SECONDS),
    "Content-Type": wantsPage ? "text/html; charset=utf-8" : "text/plain; charset=utf-8",
  });
  response.end(wantsPage ? STARTING_PAGE : "503 Service Unavailable: Cairn is starting; try again in a moment\n");
}
