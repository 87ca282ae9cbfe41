// HPACK: the decoder on RFC 7541's examples and on blocks Go's hpack encoder (containerd's) wrote,
// with its dynamic table, size updates, evictions, Huffman strings and never-indexed fields.
import { describe, expect, test } from "bun:test";
import { encodeHeaders, HpackDecoder, HpackError } from "../../src/cri/hpack";

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ""), "hex");

describe("HpackDecoder", () => {
  test("RFC 7541 C.4: requests with Huffman coding, sharing one dynamic table", () => {
    const d = new HpackDecoder();
    expect(d.decode(hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff"))).toEqual([
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
    ]);
    // 0xbe: dynamic entry 62, the :authority the first block added.
    expect(d.decode(hex("8286 84be 5886 a8eb 1064 9cbf"))).toEqual([
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
      ["cache-control", "no-cache"],
    ]);
    expect(d.decode(hex("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"))).toEqual([
      [":method", "GET"],
      [":scheme", "https"],
      [":path", "/index.html"],
      [":authority", "www.example.com"],
      ["custom-key", "custom-value"],
    ]);
  });

  test("Go's encoder with a 256-octet table: a size update, references to its entries, evictions, a never-indexed field", () => {
    const d = new HpackDecoder();
    const date = (s: number) => `Mon, 21 Oct 2013 20:13:${s} GMT`;
    expect(d.decode(hex("3fe1014e8264025885aec3771a4b6196d07abe941054d444a8200595040b8166e082a62d1bff6e919d29ad171863c78f0b97c8e9ae82ae43d3"))).toEqual([
      [":status", "302"],
      ["cache-control", "private"],
      ["date", date(21)],
      ["location", "https://www.example.com"],
    ]);
    expect(d.decode(hex("4e03333037c1c0bf"))).toEqual([
      [":status", "307"],
      ["cache-control", "private"],
      ["date", date(21)],
      ["location", "https://www.example.com"],
    ]);
    expect(
      d.decode(
        hex(
          "88c16196d07abe941054d444a8200595040b8166e084a62d1bffc05a839bd9ab77ad94e7821dd7f2e6c7b335dfdfcd5b3960d5af27087f3672c1ab270fb5291f9587316065c003ed4ee5b1063d500710899acac8b5254207317f87dc5a90649bb97f",
        ),
      ),
    ).toEqual([
      [":status", "200"],
      ["cache-control", "private"],
      ["date", date(22)],
      ["location", "https://www.example.com"],
      ["content-encoding", "gzip"],
      ["set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"],
      ["grpc-message", "Sensitive"],
    ]);
  });

  test("malformed blocks are HpackErrors: an index past the tables, a table size above 4096, bad Huffman padding, a truncated string", () => {
    expect(() => new HpackDecoder().decode(hex("be"))).toThrow(HpackError);
    expect(() => new HpackDecoder().decode(hex("3fe21f"))).toThrow(/table size/); // 4097
    expect(() => new HpackDecoder().decode(hex("0085f1e3c2e5f2"))).toThrow(HpackError); // name "www.e" cut inside a code
    expect(() => new HpackDecoder().decode(hex("000a61"))).toThrow(/truncated/);
  });
});

test("encodeHeaders: static references and literals that a decoder reads back, and that leave its table empty", () => {
  const fields = [
    [":method", "POST"],
    [":scheme", "http"],
    [":path", "/runtime.v1.RuntimeService/Version"],
    [":authority", "localhost"],
    ["content-type", "application/grpc"],
    ["te", "trailers"],
    ["grpc-timeout", "120000m"],
    ["user-agent", "nodeagent-grpc"],
  ] as const;
  const block = encodeHeaders(fields);
  expect([...block.subarray(0, 2)]).toEqual([0x83, 0x86]); // :method POST and :scheme http, indexed
  const d = new HpackDecoder();
  expect(d.decode(block)).toEqual(fields.map(([n, v]) => [n, v]));
  // Nothing was indexed: index 62 does not exist for the decoder.
  expect(() => d.decode(hex("be"))).toThrow(HpackError);
});
