import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { Combobox } from "./Combobox";
import { itemValue } from "./StackDetail";

type P = { id: string; name: string };
const PRODUCTS: P[] = [
  { id: "palo_alto_networks:pan-os", name: "PAN-OS" },
  { id: "paloaltonetworks:panorama", name: "Panorama" },
  { id: "pandas:pandas", name: "pandas" },
];

/** The combobox as a screen uses it: the options follow the text (the server's answer), the pick is kept. */
function Harness({ picked }: { picked: P[] }) {
  const [text, setText] = useState("");
  const options = text.length >= 2 ? PRODUCTS.filter((p) => p.name.toLowerCase().startsWith(text.toLowerCase())) : undefined;
  return (
    <Combobox<P>
      label="Rechercher un produit"
      text={text}
      onText={setText}
      options={options}
      optionKey={(p) => p.id}
      optionText={(p) => p.name}
      renderOption={(p) => p.name}
      onPick={(p) => picked.push(p)}
      noneText="Aucun produit"
      loadingText="Recherche…"
    />
  );
}

afterEach(cleanup);

describe("the suggestions combobox (ARIA combobox with a listbox popup)", () => {
  it("opens on typing, moves with ↓/↑ (aria-activedescendant, wrapping), picks with Enter and reads the pick back", () => {
    const picked: P[] = [];
    render(<Harness picked={picked} />);
    const input = screen.getByRole("combobox", { name: "Rechercher un produit" });
    expect(input.getAttribute("aria-expanded")).toBe("false");
    fireEvent.change(input, { target: { value: "pa" } });
    expect(input.getAttribute("aria-expanded")).toBe("true");
    const listbox = screen.getByRole("listbox");
    expect(input.getAttribute("aria-controls")).toBe(listbox.id);
    const options = screen.getAllByRole("option");
    expect(options.map((o) => o.textContent)).toEqual(["PAN-OS", "Panorama", "pandas"]);
    expect(input.getAttribute("aria-activedescendant")).toBeNull();

    fireEvent.keyDown(input, { key: "ArrowDown" });
    expect(input.getAttribute("aria-activedescendant")).toBe(options[0]!.id);
    expect(options[0]!.getAttribute("aria-selected")).toBe("true");
    fireEvent.keyDown(input, { key: "ArrowDown" });
    fireEvent.keyDown(input, { key: "ArrowDown" });
    expect(input.getAttribute("aria-activedescendant")).toBe(options[2]!.id);
    fireEvent.keyDown(input, { key: "ArrowDown" }); // wraps to the first
    expect(input.getAttribute("aria-activedescendant")).toBe(options[0]!.id);
    fireEvent.keyDown(input, { key: "ArrowUp" }); // and back to the last
    expect(input.getAttribute("aria-activedescendant")).toBe(options[2]!.id);
    fireEvent.keyDown(input, { key: "ArrowUp" });
    expect(options[1]!.getAttribute("aria-selected")).toBe("true");
    expect(options[0]!.getAttribute("aria-selected")).toBe("false");

    fireEvent.keyDown(input, { key: "Enter" });
    expect(picked).toEqual([PRODUCTS[1]]);
    expect((input as HTMLInputElement).value).toBe("Panorama");
    expect(input.getAttribute("aria-expanded")).toBe("false");
    expect(input.getAttribute("aria-activedescendant")).toBeNull();
  });

  it("Enter without an active option picks nothing; Escape closes, then clears; the keys never move the focus", () => {
    const picked: P[] = [];
    render(<Harness picked={picked} />);
    const input = screen.getByRole("combobox");
    input.focus();
    fireEvent.change(input, { target: { value: "pan-" } });
    expect(screen.getAllByRole("option").map((o) => o.textContent)).toEqual(["PAN-OS"]);
    fireEvent.keyDown(input, { key: "Enter" });
    expect(picked).toEqual([]);
    fireEvent.keyDown(input, { key: "ArrowDown" });
    expect(document.activeElement).toBe(input);
    fireEvent.keyDown(input, { key: "Escape" });
    expect(input.getAttribute("aria-expanded")).toBe("false");
    expect((input as HTMLInputElement).value).toBe("pan-");
    fireEvent.keyDown(input, { key: "Escape" });
    expect((input as HTMLInputElement).value).toBe("");
    // ↓ on a closed list opens it again.
    fireEvent.change(input, { target: { value: "pand" } });
    fireEvent.keyDown(input, { key: "Escape" });
    fireEvent.keyDown(input, { key: "ArrowDown" });
    expect(input.getAttribute("aria-expanded")).toBe("true");
    fireEvent.keyDown(input, { key: "Enter" });
    expect(picked).toEqual([PRODUCTS[2]]);
  });

  it("says when nothing matches, and a click picks an option", () => {
    const picked: P[] = [];
    render(<Harness picked={picked} />);
    const input = screen.getByRole("combobox");
    fireEvent.change(input, { target: { value: "zz" } });
    expect(screen.queryAllByRole("option")).toEqual([]);
    expect(screen.getByRole("status").textContent).toBe("Aucun produit");
    fireEvent.change(input, { target: { value: "pan" } });
    fireEvent.click(screen.getByRole("option", { name: "PAN-OS" }));
    expect(picked).toEqual([PRODUCTS[0]]);
  });
});

describe("an item's value", () => {
  it("puts the version after @ for products and packages only, never twice", () => {
    expect(itemValue("product", "palo_alto_networks:pan-os", "10.2.5")).toBe("palo_alto_networks:pan-os@10.2.5");
    expect(itemValue("purl", " pkg:pypi/django ", "4.2.1")).toBe("pkg:pypi/django@4.2.1");
    expect(itemValue("product", "apache:tomcat@9.0.80", "10")).toBe("apache:tomcat@9.0.80");
    expect(itemValue("product", "apache:tomcat", " ")).toBe("apache:tomcat");
    expect(itemValue("vendor", "fortinet", "7.2")).toBe("fortinet");
  });
});
