/**
 * `npx tsx scripts/screenshot-inbox.ts`: the README's picture (docs/img/inbox.png). The built server
 * (`npm run build`) on a fresh embedded database with the bundled snapshot, the first stack of the
 * README (PAN-OS 10.2.5, Django 4.2.1), signed in as an administrator in Chromium (/usr/bin/chromium,
 * or VIGIE_CHROMIUM) at 1280×800, in French; the alert inbox once its rows are drawn.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const OUT = process.argv[2] ?? "docs/img/inbox.png";
const EMAIL = "rssi@acme.example";
const PASSWORD = "correct horse battery staple";
const dir = mkdtempSync(join(tmpdir(), "vigie-shot-"));
const env = { ...process.env, VIGIE_DATA_DIR: join(dir, "data"), DATABASE_URL: "", LOG_LEVEL: "info", PORT: "0" };
const cli = (...args: string[]) =>
  JSON.parse(execFileSync(process.execPath, ["dist/cli.js", ...args, "--json"], { env, encoding: "utf8" })) as { id: string };

let server: ChildProcess | undefined;
try {
  const org = cli("org", "create", "--name", "Acme");
  const project = cli("project", "create", "--org", org.id, "--name", "Production");
  cli("user", "create", "--email", EMAIL, "--password", PASSWORD, "--org", org.id, "--role", "admin");
  server = spawn(process.execPath, ["dist/cli.js", "serve"], {
    env: { ...env, VIGIE_SNAPSHOT: "auto" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const origin = await new Promise<string>((resolve, reject) => {
    let pending = "";
    server!.stdout!.on("data", (c: Buffer) => {
      pending += c.toString();
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(pending);
      if (m) resolve(m[1]!);
    });
    server!.once("exit", (code) => reject(new Error(`server exited (${code})`)));
  });
  const browser = await chromium.launch({ executablePath: process.env.VIGIE_CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: "fr-FR", timezoneId: "Europe/Paris" });
    await page.goto(`${origin}/login`);
    await page.getByLabel("Adresse e-mail").fill(EMAIL);
    await page.getByLabel("Mot de passe").fill(PASSWORD);
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/p\/[0-9a-f-]{36}$/);
    const api = `/api/v1/organizations/${org.id}/projects/${project.id}`;
    await page.evaluate(
      `fetch(${JSON.stringify(`${api}/stacks`)}, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({
        name: "Production", items: [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" },
          { item_type: "purl", value: "pkg:pypi/django@4.2.1", min_severity: "high" }] }) }).then((r) => r.json())`,
    );
    await page.goto(`${origin}/p/${project.id}/alerts`);
    await page.locator("main table tbody tr").nth(10).waitFor();
    await page.waitForTimeout(500);
    await page.screenshot({ path: OUT });
    console.log(`${OUT}: ${statSync(OUT).size} bytes`);
  } finally {
    await browser.close();
  }
} finally {
  server?.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 2000));
  rmSync(dir, { recursive: true, force: true });
}
