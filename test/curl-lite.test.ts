/** test/curl-lite.mjs, the curl the README test uses where curl is not installed: each option the README uses. */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CURL_LITE = fileURLToPath(new URL("./curl-lite.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "curl-lite-"));
let base = "";
let last: { method?: string; url?: string; headers: IncomingMessage["headers"]; body: string } | undefined;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    last = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString("latin1") };
    res.writeHead(req.url === "/gone" ? 404 : 201, { "content-type": "application/json", "x-test": "1" }).end('{"ok": true}');
  });
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const curl = (...args: string[]) =>
  new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile(process.execPath, [CURL_LITE, ...args], (err, stdout) => resolve({ code: err ? Number(err.code) : 0, stdout })),
  );

describe("curl-lite", () => {
  it("-s -X -H -d: the method, headers and body sent; the answer on stdout", async () => {
    const r = await curl(
      "-s",
      "-X",
      "PATCH",
      `${base}/a`,
      "-H",
      "Authorization: Bearer k",
      "-H",
      "Content-Type: application/json",
      "-d",
      '{"x": 1}',
    );
    expect(r).toEqual({ code: 0, stdout: '{"ok": true}' });
    expect(last).toMatchObject({ method: "PATCH", url: "/a", body: '{"x": 1}' });
    expect(last?.headers).toMatchObject({ authorization: "Bearer k", "content-type": "application/json" });
  });

  it("-d alone is a POST; -o writes the body to a file; -w prints the status; -D dumps the status line and headers", async () => {
    const out = join(dir, "out.json");
    const head = join(dir, "head.txt");
    const r = await curl("-s", `${base}/gone`, "-d", "x", "-o", out, "-D", head, "-w", "%{http_code}\\n");
    expect(r).toEqual({ code: 0, stdout: "404\n" });
    expect(last?.method).toBe("POST");
    expect(readFileSync(out, "utf8")).toBe('{"ok": true}');
    expect(readFileSync(head, "utf8").split("\r\n")[0]).toBe("HTTP/1.1 404 Not Found");
  });

  it("-F name=@file sends multipart/form-data with the file's bytes and name", async () => {
    const file = join(dir, "rapport.pdf");
    writeFileSync(file, Buffer.from([0x25, 0x50, 0x44, 0x46, 0xff]));
    await curl("-s", "-X", "POST", `${base}/find`, "-F", `file=@${file}`);
    expect(last?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(last?.body).toContain('name="file"; filename="rapport.pdf"');
    expect(last?.body).toContain("%PDF\xff");
  });

  it("no answer: exit 7; an option it does not know: exit 2", async () => {
    expect((await curl("-s", "http://127.0.0.1:9/")).code).toBe(7);
    expect((await curl("-k", base)).code).toBe(2);
  });
});
