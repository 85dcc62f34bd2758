import { RequestInvalid } from "./error-body.js";
import { missing, valueError } from "../pydantic/validate.js";
import { INVALID } from "../messages.js";

/** A route's file upload: the multipart/form-data field holding the file, and the body limit. */
export interface UploadSpec {
  field: string;
  maxBytes: number;
}

/** The uploaded file. */
export interface Upload {
  bytes: Uint8Array;
  filename: string | null;
}

/**
 * The file of a multipart/form-data body (read whole: the route's body limit bounds it, and the
 * body budget reserved it). Parsed by Node's own fetch implementation (undici's FormData parser,
 * maintained with Node): no dependency. A body that is not valid multipart, or without the field,
 * is a 422 at `body` / `body.<field>`.
 */
export async function readUpload(body: Buffer, contentType: string, spec: UploadSpec): Promise<Upload> {
  let form: FormData;
  try {
    form = await new Response(body, { headers: { "content-type": contentType } }).formData();
  } catch {
    throw new RequestInvalid([valueError(["body"], INVALID.uploadUnreadable, null)]);
  }
  const file = form.get(spec.field);
  if (file === null) throw new RequestInvalid([missing(["body", spec.field], null)]);
  if (typeof file === "string") return { bytes: Buffer.from(file, "utf8"), filename: null };
  return { bytes: new Uint8Array(await file.arrayBuffer()), filename: file.name || null };
}

/** The OpenAPI body of an upload route: the JSON schema as declared, and the multipart form with its binary field. */
export function uploadBody(json: unknown, spec: UploadSpec): unknown {
  return {
    content: {
      "application/json": { schema: json },
      "multipart/form-data": {
        schema: {
          type: "object",
          required: [spec.field],
          properties: { [spec.field]: { type: "string", format: "binary", description: `The file, at most ${spec.maxBytes} bytes` } },
        },
      },
    },
  };
}
