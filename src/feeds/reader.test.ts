import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { jsonArrayItems } from "./reader.js";

async function items(text: string, keys: string[] | null, chunk = 7): Promise<unknown[]> {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += chunk) parts.push(text.slice(i, i + chunk));
  const out: unknown[] = [];
  for await (const t of jsonArrayItems(Readable.from(parts), keys)) out.push(JSON.parse(t));
  return out;
}

describe("jsonArrayItems", () => {
  it("streams the elements of the array under a top-level key, across chunk boundaries", async () => {
    const doc = JSON.stringify({
      CVE_data_type: "CVE",
      note: 'a [tricky] "string" with { braces }',
      CVE_Items: [
        { id: 1, s: "]}" },
        { id: 2, nested: [{ a: [1, 2] }] },
      ],
      after: [9],
    });
    for (const chunk of [1, 3, 7, 1000])
      expect(await items(doc, ["CVE_Items"], chunk)).toEqual([
        { id: 1, s: "]}" },
        { id: 2, nested: [{ a: [1, 2] }] },
      ]);
  });

  it("streams a top-level array, and finds nothing when the key is absent", async () => {
    expect(await items('[{"a":1},{"b":"x\\"y"}]', null)).toEqual([{ a: 1 }, { b: 'x"y' }]);
    expect(await items('{"vulnerabilities":[{"a":1}]}', ["CVE_Items"])).toEqual([]);
    expect(await items('{"inner":{"CVE_Items":[{"a":1}]}}', ["CVE_Items"])).toEqual([]);
  });
});
