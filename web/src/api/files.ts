import { ApiError } from "./client";

/** The file name an answer's Content-Disposition gives (`attachment; filename="x.json"`), else `fallback`. */
export function attachmentName(response: Response, fallback: string): string {
  const cd = response.headers.get("content-disposition") ?? "";
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(cd);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1].trim());
    } catch {
      // A malformed encoding: the plain filename, else the fallback.
    }
  }
  const plain = /filename\s*=\s*"([^"]+)"|filename\s*=\s*([^;\s]+)/i.exec(cd);
  return plain?.[1] ?? plain?.[2] ?? fallback;
}

/** Hands a Blob to the browser as a file download named `name` (an object URL clicked, then revoked). */
export function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.rel = "noopener";
  a.style.display = "none";
  document.body.append(a);
  a.click();
  a.remove();
  // After the click's task: the download has taken the URL.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * A GET made with the typed client and `parseAs: "blob"` (the session goes with it; a 401 sends the
 * user to the login screen), saved as a file: named as the server's Content-Disposition says, else
 * `fallback`. An error answer (409, 404…) is an ApiError carrying the server's `detail`, not a file.
 * Returns the file name.
 */
export async function download(call: Promise<{ data?: unknown; error?: unknown; response: Response }>, fallback: string): Promise<string> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiError(response.status, (error as { detail?: unknown } | undefined)?.detail);
  const name = attachmentName(response, fallback);
  saveFile(data instanceof Blob ? data : new Blob([JSON.stringify(data)], { type: "application/json" }), name);
  return name;
}

/** A size in the user's words: 527 Ko, 12,4 Mo (fr) / 527 KB, 12.4 MB (en). */
export function formatBytes(bytes: number, lang: "fr" | "en"): string {
  const units = lang === "fr" ? ["o", "Ko", "Mo", "Go"] : ["B", "KB", "MB", "GB"];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  const digits = u === 0 || n >= 100 ? 0 : 1;
  return `${new Intl.NumberFormat(lang === "fr" ? "fr-FR" : "en-GB", { maximumFractionDigits: digits }).format(n)} ${units[u]}`;
}
