import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpFetch } from "../../src/models/http-fetch";

/** Routes of a local server, each answering one way the SDKs may meet. */
const routes: Record<string, (req: IncomingMessage, body: string, res: ServerResponse) => void> = {
  "/echo": (req, body, res) => {
    res.writeHead(201, { "content-type": "application/json", "x-request-id": "req_1" });
    res.end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization }));
  },
  "/gzip": (_req, _body, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    res.end(gzipSync(JSON.stringify({ zipped: true })));
  },
  "/empty": (_req, _body, res) => {
    res.writeHead(204);
    res.end();
  },
  "/moved": (_req, _body, res) => {
    res.writeHead(307, { location: "/echo" });
    res.end();
  },
  "/hang": () => {},
  "/cut": (_req, _body, res) => {
    // Headers and half a body, then the connection drops.
    res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
    res.write('{"half":');
    setTimeout(() => res.socket?.destroy(), 20);
  },
};

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => routes[req.url ?? ""]?.(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("httpFetch", () => {
  it("sends the method, headers and body and hands back status, headers and body", async () => {
    const response = await httpFetch(`${base}/echo`, {
      method: "POST",
      headers: new Headers({ authorization: "Bearer k", "content-type": "application/json" }),
      body: JSON.stringify({ é: "ü" }),
    });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.url).toBe(`${base}/echo`);
    expect(response.headers.get("x-request-id")).toBe("req_1");
    expect(await response.json()).toEqual({ method: "POST", body: '{"é":"ü"}', auth: "Bearer k" });
  });

  it("decodes a compressed body, and gives a 204 no body", async () => {
    const zipped = await httpFetch(`${base}/gzip`);
    expect(zipped.headers.get("content-encoding")).toBeNull();
    expect(await zipped.json()).toEqual({ zipped: true });
    const empty = await httpFetch(`${base}/empty`, { method: "POST", body: "x" });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it("follows a redirect as Node's fetch does", async () => {
    const response = await httpFetch(`${base}/moved`, { method: "POST", body: "again" });
    expect(response.status).toBe(201);
    expect(((await response.json()) as { body: string }).body).toBe("again");
  });

  it("rejects with an AbortError when the signal fires, before or while waiting", async () => {
    const controller = new AbortController();
    const waiting = httpFetch(`${base}/hang`, { method: "POST", body: "", signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    await expect(httpFetch(`${base}/echo`, { signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
  });

  it("rejects with TypeError('fetch failed') and the cause when the connection fails or drops mid-body", async () => {
    const cut = httpFetch(`${base}/cut`);
    await expect(cut).rejects.toThrow(TypeError);
    await expect(cut).rejects.toThrow("fetch failed");
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = httpFetch(`http://127.0.0.1:${port}/`);
    await expect(refused).rejects.toMatchObject({
      name: "TypeError",
      message: "fetch failed",
      cause: { code: "ECONNREFUSED" },
    });
  });
});
