#!/usr/bin/env node
/**
 * The part of curl the README's examples use (-s, -X, -H, -d, -F name=@file, -o, -w '%{http_code}\n',
 * -D file), on Node's fetch: the README test runs it where curl is not installed, so that
 * `npm ci && npm test` needs Node and npm alone. Exits 0 on any HTTP answer, 7 when no answer
 * came (curl's "failed to connect").
 */
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";

const args = process.argv.slice(2);
let method;
let url;
let body;
let form;
let out;
let dumpHeaders;
let writeOut;
const headers = new Headers();
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === "-s" || a === "--silent") continue;
  else if (a === "-X") method = args[++i];
  else if (a === "-H") {
    const h = args[++i];
    const at = h.indexOf(":");
    headers.append(h.slice(0, at).trim(), h.slice(at + 1).trim());
  } else if (a === "-d" || a === "--data" || a === "--data-binary") body = args[++i];
  else if (a === "-F") {
    const [name, value] = args[++i].split(/=(.*)/s);
    form ??= new FormData();
    if (value.startsWith("@")) form.append(name, new Blob([readFileSync(value.slice(1))]), basename(value.slice(1)));
    else form.append(name, value);
  } else if (a === "-o") out = args[++i];
  else if (a === "-D") dumpHeaders = args[++i];
  else if (a === "-w") writeOut = args[++i];
  else if (a.startsWith("-")) {
    process.stderr.write(`curl-lite: option ${a} not supported\n`);
    process.exit(2);
  } else url = a;
}
if (body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/x-www-form-urlencoded");
method ??= body !== undefined || form ? "POST" : "GET";

let res;
try {
  res = await fetch(url, { method, headers, body: form ?? body, redirect: "manual" });
} catch (err) {
  process.stderr.write(`curl-lite: ${err.cause?.message ?? err.message}\n`);
  process.exit(7);
}
const bytes = Buffer.from(await res.arrayBuffer());
if (dumpHeaders) {
  const lines = [`HTTP/1.1 ${res.status} ${res.statusText}`, ...[...res.headers].map(([k, v]) => `${k}: ${v}`)];
  writeFileSync(dumpHeaders, `${lines.join("\r\n")}\r\n\r\n`);
}
if (out) writeFileSync(out, bytes);
else process.stdout.write(bytes);
if (writeOut) process.stdout.write(writeOut.replaceAll("%{http_code}", String(res.status)).replaceAll("\\n", "\n"));
