import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The web application (web/), built into dist/web/ next to the compiled server, which serves it
// (src/platform/http/web.ts). The manifest lists each chunk (bench/web.ts measures the login's first load).
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    manifest: true,
    target: "es2022",
  },
  // `vite` (development server) on 5173 forwards the server's paths to `npm start` on 8080.
  server: {
    proxy: Object.fromEntries(["/api", "/auth", "/projects", "/organizations", "/openapi.json"].map((p) => [p, "http://127.0.0.1:8080"])),
  },
});
