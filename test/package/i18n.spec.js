// The catalogs and help texts behind every word the editor and the runtime show: en-US complete,
// German with exactly the same keys and placeholders, help in the core layout for every node, and
// no English left in the editor forms themselves.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { editorForms } = require("../support/editor-forms");

const ROOT = path.join(__dirname, "..", "..");
const LOCALES = path.join(ROOT, "locales");
const NODES = Object.keys(require("../../package.json")["node-red"].nodes);
const LANGS = ["en-US", "de", "ja"];
/** The translations, each checked against en-US. */
const TRANSLATIONS = LANGS.filter((l) => l !== "en-US");
/** Keys starting with "edge." live in the account's catalog and are shared by every node. */
const SHARED = "edge-account";

const catalog = (lang, name) =>
  JSON.parse(fs.readFileSync(path.join(LOCALES, lang, `${name}.json`), "utf8"));
const help = (lang, name) => fs.readFileSync(path.join(LOCALES, lang, `${name}.html`), "utf8");
const editorHtml = (name) =>
  fs.readFileSync(path.join(ROOT, "nodes", name, `${name}.html`), "utf8");
/** Each dialog's form as the shared editor script builds it from the rows a node's .html lists. */
const { forms } = editorForms();

/** Every leaf of a catalog as [dotted key, text]. */
function leaves(obj, prefix = "") {
  return Object.entries(obj).flatMap(([k, v]) =>
    typeof v === "object" && v !== null ? leaves(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]],
  );
}

const placeholders = (text) => [...String(text).matchAll(/__(\w+)__/g)].map((m) => m[1]).sort();

function lookup(name, key) {
  let value = catalog("en-US", key.startsWith("edge.") ? SHARED : name);
  for (const part of key.split(".")) value = value?.[part];
  return value;
}

/** The i18n keys an editor form or a runtime file names literally. */
function keysIn(text) {
  const keys = [];
  for (const m of text.matchAll(/data-i18n="([^"]+)"/g))
    for (const part of m[1].split(";")) keys.push(part.replace(/^\[[a-z]+\]/, ""));
  for (const m of text.matchAll(/(?:\b_|\bt)\(\s*["'`]((?:edge)[\w.-]*)/g)) keys.push(m[1]);
  return keys;
}

/**
 * The words of a help text as a reader meets them: the text without its tags and entities, each
 * run of letters or digits between spaces one word. Japanese has no spaces between words, so
 * there every two kana or kanji count as one word (a Japanese word is two characters on average):
 * 500 words are about 1,000 characters, a screen of Node-RED's own Japanese help.
 */
function helpWords(html) {
  const text = html.replace(/<[^>]+>/g, " ").replace(/&[a-z]+;|&#\d+;/g, " ");
  const WIDE = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}ー]/gu;
  const wide = (text.match(WIDE) ?? []).length;
  const spaced = text
    .replace(WIDE, " ")
    .split(/\s+/)
    .filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
  return spaced + Math.ceil(wide / 2);
}

/** A help text may say this much: what a user needs first; the rest is in docs/. */
const MAX_HELP_WORDS = 500;

describe("i18n", function () {
  it("should keep each node's help to 500 words in every language, and link to docs/ for the rest", function () {
    const REPO = "https://github.com/edgewire/node-red-edge-device/blob/main/";
    const problems = [];
    const counts = {};
    for (const lang of LANGS)
      for (const name of NODES) {
        const text = help(lang, name);
        const words = helpWords(text);
        (counts[name] ??= {})[lang] = words;
        if (words > MAX_HELP_WORDS) problems.push(`${lang}/${name}.html: ${words} words`);
        // The link to the rest opens a file of the repository, at a heading it has.
        const links = [...text.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
        const docs = links.filter((l) => l.startsWith(`${REPO}docs/`));
        if (docs.length === 0) problems.push(`${lang}/${name}.html: no link to docs/`);
        for (const link of docs) {
          const [file, anchor] = link.slice(REPO.length).split("#");
          const full = path.join(ROOT, file);
          if (!fs.existsSync(full)) problems.push(`${lang}/${name}.html: ${file} does not exist`);
          else if (anchor && !new RegExp(`^#+ ${anchor}$`, "m").test(fs.readFileSync(full, "utf8")))
            problems.push(`${lang}/${name}.html: ${file} has no heading #${anchor}`);
        }
      }
    assert.deepEqual(problems, [], JSON.stringify(counts));
  });

  it("should count help words as a reader does, Japanese by its characters", function () {
    assert.equal(helpWords("<p>Reads the <code>state</code> of a device.</p>"), 6);
    assert.equal(helpWords("<p>Liest &amp; schreibt – den Zustand.</p>"), 4);
    // 12 wide characters are 6 words; the code and the number count as words of their own.
    assert.equal(helpWords("<p>デバイスの状態を読みます <code>msg.payload</code> 10</p>"), 6 + 2);
  });

  it("should call a command's good end by one word in the await node, the fleet node and the tab", function () {
    // German said "abgeschlossen" at the await node and "erledigt" at the fleet's count (issue 37).
    for (const lang of LANGS) {
      const word = catalog(lang, "edge-await-command")["edge-await-command"].outputLabels.complete;
      const fleet = catalog(lang, "edge-fleet-command")["edge-fleet-command"].status.progress;
      const tab = catalog(lang, "edge-account")["edge-account"].sidebar;
      assert.ok(fleet.includes(word), `${lang}: fleet says "${fleet}", await "${word}"`);
      assert.equal(tab.complete, word, lang);
      assert.ok(tab.count.includes(word), `${lang}: the tab says "${tab.count}"`);
      const status = catalog(lang, "edge-await-command")["edge-await-command"].status.complete;
      assert.ok(status.includes(word), `${lang}: await status "${status}"`);
    }
  });

  it("should have a catalog and a help text for every node in every language", function () {
    for (const lang of LANGS)
      for (const name of NODES) {
        assert.ok(fs.existsSync(path.join(LOCALES, lang, `${name}.json`)), `${lang}/${name}.json`);
        assert.ok(fs.existsSync(path.join(LOCALES, lang, `${name}.html`)), `${lang}/${name}.html`);
      }
    assert.deepEqual(fs.readdirSync(LOCALES).sort(), [...LANGS].sort());
  });

  it("should have every en-US key in de and ja and every of their keys in en-US, with the same placeholders", function () {
    const problems = [];
    for (const lang of TRANSLATIONS)
      for (const name of NODES) {
        const en = new Map(leaves(catalog("en-US", name)));
        const tr = new Map(leaves(catalog(lang, name)));
        for (const [key, text] of en) {
          if (!tr.has(key)) problems.push(`${name}: ${lang} lacks ${key}`);
          else if (placeholders(text).join() !== placeholders(tr.get(key)).join())
            problems.push(`${name}: ${key} placeholders ${placeholders(tr.get(key))} in ${lang}`);
          else if (typeof tr.get(key) !== "string" || tr.get(key).trim() === "")
            problems.push(`${name}: ${lang} ${key} is empty`);
        }
        for (const key of tr.keys())
          if (!en.has(key)) problems.push(`${name}: en-US lacks ${lang}'s ${key}`);
      }
    assert.deepEqual(problems, []);
  });

  it("should translate the German and Japanese catalogs rather than copy the English ones", function () {
    for (const lang of TRANSLATIONS)
      for (const name of NODES) {
        const en = new Map(leaves(catalog("en-US", name)));
        const tr = leaves(catalog(lang, name));
        const words = tr.filter(
          ([k, v]) => /[a-z]{4,} [a-z]{3,}/i.test(en.get(k)) && v !== en.get(k),
        );
        const sentences = tr.filter(([k]) => /[a-z]{4,} [a-z]{3,}/i.test(en.get(k)));
        assert.ok(
          words.length >= sentences.length * 0.9,
          `${lang} ${name}: only ${words.length} of ${sentences.length} sentences translated`,
        );
      }
  });

  it("should say every account configuration error in German and Japanese, not English detail", function () {
    // An English `detail` in "Ungültige Kontokonfiguration: the token is empty" was the English
    // next to German labels of issue 37: each literal refusal names an i18next context
    // (`edge.errors.bad-config_token`) that every catalog translates.
    const sources = [];
    const walk = (dir) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (p.endsWith(".ts")) sources.push(fs.readFileSync(p, "utf8"));
      }
    };
    walk(path.join(ROOT, "nodes"));
    const code = sources.join("\n");
    const problems = [];
    const raised = [...code.matchAll(/new EdgeError\("bad-config", \{([^}]*)\}/g)].map((m) => m[1]);
    const contexts = new Set();
    for (const body of raised) {
      const context = /context: "(\w+)"/.exec(body)?.[1];
      if (context) contexts.add(context);
      else if (/detail: ["`]/.test(body))
        problems.push(`English detail, no context: ${body.trim()}`);
    }
    assert.ok(contexts.size >= 10, [...contexts].join(", "));
    const en = catalog("en-US", SHARED).edge.errors;
    for (const lang of TRANSLATIONS) {
      const tr = catalog(lang, SHARED).edge.errors;
      for (const c of contexts) {
        const key = `bad-config_${c}`;
        if (!en[key]) problems.push(`en-US: no ${key}`);
        if (!tr[key] || tr[key] === en[key]) problems.push(`${lang}: ${key} not translated`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it("should write Japanese in Japanese, with Node-RED's own words for its things", function () {
    // Node-RED's ja catalog says ノード, フロー, デプロイ; an English word in a Japanese sentence
    // is a name (msg.payload, Elems, localfilesystem) or a code, never "node", "flow" or "deploy".
    const problems = [];
    for (const name of NODES) {
      const texts = [...leaves(catalog("ja", name)), ["help", help("ja", name)]];
      for (const [key, text] of texts) {
        const prose = String(text)
          .replace(/<code[^>]*>[\s\S]*?<\/code>|<[^>]+>|https?:\/\/\S+/g, " ")
          .replace(/\bNode-RED\b|\b(?:msg|edge)[\w.-]*|__\w+__/g, " ");
        if (/\b(?:node|nodes|flow|flows|deploy|deployed)\b/i.test(prose))
          problems.push(
            `ja ${name} ${key}: ${/\b(?:node|nodes|flow|flows|deploy|deployed)\b/i.exec(prose)[0]}`,
          );
      }
      const help_ = help("ja", name);
      for (const term of ["ノード"])
        if (!help_.includes(term)) problems.push(`ja ${name} help: no ${term}`);
    }
    assert.deepEqual(problems, []);
  });

  it("should name only keys that exist in the en-US catalogs, in the forms and the runtime", function () {
    const missing = [];
    const files = [];
    for (const name of NODES) {
      files.push([name, editorHtml(name)]);
      files.push([name, forms[name]]);
      files.push([name, fs.readFileSync(path.join(ROOT, "nodes", name, `${name}.ts`), "utf8")]);
    }
    for (const [name, text] of files)
      for (const key of keysIn(text)) {
        const value = lookup(name, key.replace(/\.$/, ""));
        const ok = key.endsWith(".") ? typeof value === "object" : typeof value === "string";
        if (!ok) missing.push(`${name}: ${key}`);
      }
    assert.deepEqual(missing, []);
  });

  it("should show no English literal in the editor forms", function () {
    const found = [];
    for (const name of NODES) {
      const html = editorHtml(name);
      const template = forms[name];
      assert.match(template, /<input|<select/, `${name}: no form`);
      // Text between tags: only whitespace, entities and nothing a user reads.
      for (const m of template.matchAll(/>([^<]+)</g))
        if (/[A-Za-z]{2,}/.test(m[1].replace(/&[a-z]+;/g, "")))
          found.push(`${name}: "${m[1].trim()}"`);
      for (const m of template.matchAll(/\s(placeholder|title)="([^"]*)"/g))
        found.push(`${name}: ${m[1]}="${m[2]}"`);
      // Strings in the editor's script that read like words for people (two words or more).
      const script = /<script type="text\/javascript">([\s\S]*?)<\/script>/.exec(html)[1];
      // The palette category is a name, shown as it is in every language; so is a config node's
      // type in `defaults` (core's "http proxy").
      const code = script
        .replace(/^\s*\/\/.*$/gm, "")
        .replace(/category: "[^"]*"/, "")
        .replace(/\btype: "[^"]*"/g, "");
      for (const m of code.matchAll(/(["'])([^"'\n]*?)\1/g))
        if (/[A-Za-z]{2,}\s+[A-Za-z]{2,}/.test(m[2])) found.push(`${name}: ${m[0]}`);
    }
    assert.deepEqual(found, []);
  });

  it("should lay out every help text like the core nodes' help, in every language", function () {
    const headings = {
      "en-US": { inputs: "Inputs", outputs: "Outputs", details: "Details", props: "Properties" },
      de: { inputs: "Eingaben", outputs: "Ausgaben", details: "Details", props: "Eigenschaften" },
      ja: { inputs: "入力", outputs: "出力", details: "詳細", props: "プロパティ" },
    };
    for (const lang of LANGS)
      for (const name of NODES) {
        const text = help(lang, name);
        const h = headings[lang];
        assert.match(
          text,
          new RegExp(`^<script type="text/html" data-help-name="${name}">\\s*<p>`),
          `${lang}/${name}.html: must open with data-help-name and a first paragraph`,
        );
        assert.match(text, /<\/script>\s*$/, `${lang}/${name}.html`);
        assert.match(text, /<dl class="message-properties">/, `${lang}/${name}.html`);
        // A node without an input (edge-watch-events starts flows) has no Inputs, as core inject.
        const editor = fs.readFileSync(path.join(ROOT, "nodes", name, `${name}.html`), "utf8");
        const inputs = /\binputs:\s*0\b/.test(editor) ? [] : [h.inputs];
        const wanted = name === SHARED ? [h.props, h.details] : [...inputs, h.outputs, h.details];
        let at = -1;
        for (const heading of wanted) {
          const next = text.indexOf(`<h3>${heading}</h3>`);
          assert.ok(next > at, `${lang}/${name}.html: <h3>${heading}</h3> missing or out of order`);
          at = next;
        }
      }
  });
  it("should word the Device, Stream and Inbox placeholders alike in every node, short enough to show whole", function () {
    // The field says what to type and what empty means, the same way in every dialog; the
    // browser spec measures that each fits its field.
    const starts = {
      "en-US": { device: "name or id", stream: "id or path", inbox: "id or path" },
      de: { device: "Name oder ID", stream: "ID oder Pfad", inbox: "ID oder Pfad" },
      ja: { device: "名前またはID", stream: "IDまたはパス", inbox: "IDまたはパス" },
    };
    for (const lang of LANGS) {
      const byField = {};
      for (const name of NODES) {
        const shown = catalog(lang, name)[name]?.placeholder ?? {};
        for (const field of ["device", "stream", "inbox"]) {
          const text = shown[field];
          if (text === undefined) continue;
          assert.ok(text.startsWith(starts[lang][field]), `${lang} ${name}.${field}: "${text}"`);
          assert.ok(text.length <= 36, `${lang} ${name}.${field}: "${text}" is too long`);
          (byField[`${field}: ${text.split(/; |。/)[1] ?? ""}`] ??= []).push(name);
        }
      }
      // One wording per field and meaning: the device of two nodes, the stream of two.
      const devices = Object.keys(byField).filter((k) => k.startsWith("device"));
      assert.equal(devices.length, 1, `${lang}: ${devices}`);
      const msgStreams = Object.keys(byField).filter((k) => /^stream: .*msg\.streamId/.test(k));
      assert.equal(msgStreams.length, 1, `${lang}: ${msgStreams}`);
      assert.deepEqual(byField[msgStreams[0]].sort(), ["edge-list-events", "edge-send-command"]);
    }
  });
});
