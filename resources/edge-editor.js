// What the editor dialogs of every edge node share, loaded once by each node's .html from this
// package's resources/ folder: each dialog's form built from the rows its .html lists, what every
// dialog does as it opens (prepare) and the label style and account of a new node, number
// validators that say their range, short labels, the account picked for a new node, the device
// and stream pickers, and the Elems editor. Ranges and defaults come from the runtime
// (RED.settings.<type>Ranges, exported by registerType), never typed here.
(function () {
  "use strict";
  if (window.EdgeEditor) return;

  const MODULE = "@edgewire/node-red-edge-device";
  /** An id of the service: a type letter and 24 lowercase hex digits. */
  const ID = /^[a-z][0-9a-f]{24}$/;
  const LABEL_MAX = 24;
  const ACCOUNT = "edge-account";

  // The help shows examples (JSON, stream paths) too long for the sidebar; Node-RED keeps code on
  // one line, so the help marks them edge-wrap and they wrap like text.
  $("<style>")
    .text(".red-ui-help code.edge-wrap { white-space: normal; overflow-wrap: anywhere; }")
    .appendTo("head");

  /** A text of the shared catalog (edge-account.json, "edge.*"). */
  function text(key, params) {
    return RED._(MODULE + "/edge-account:" + key, params);
  }

  function nodeText(type, key, params) {
    return RED._(MODULE + "/" + type + ":" + type + "." + key, params);
  }

  function ranges(type) {
    const camel = type.replace(/-(\w)/g, function (_m, c) {
      return c.toUpperCase();
    });
    return (RED.settings && RED.settings[camel + "Ranges"]) || {};
  }

  /**
   * A validator for a whole-number field: blank is allowed (the runtime's default or the meaning
   * the help gives), anything else must be in the runtime's range, or the field says which range.
   * Two parameters, so Node-RED shows the returned text.
   */
  function integer(type, field) {
    return function (v, _opt) {
      const s = v === undefined || v === null ? "" : String(v).trim();
      if (s === "") return true;
      const range = ranges(type)[field];
      const n = /^\d+$/.test(s) ? Number(s) : NaN;
      if (range && n >= range.min && n <= range.max) return true;
      if (!range && !isNaN(n)) return true;
      return text("edge.editor.range", {
        field: nodeText(type, "label." + field),
        min: range ? range.min : 0,
        max: range ? range.max : Number.MAX_SAFE_INTEGER,
      });
    };
  }

  /** A validator for a select's property: one of the values its options offer. */
  function oneOf() {
    const values = Array.prototype.slice.call(arguments);
    return function (v) {
      return values.indexOf(v) !== -1;
    };
  }

  /** Puts each number field's default in its placeholder and its range in its tooltip. */
  function numberHints(type, prefix) {
    const all = ranges(type);
    Object.keys(all).forEach(function (field) {
      const input = $("#" + prefix + "-" + field);
      const range = all[field];
      if (!input.length) return;
      if (range.default !== undefined) input.attr("placeholder", String(range.default));
      const tip = input.attr("title");
      const bounds = text("edge.editor.rangeHint", { min: range.min, max: range.max });
      input.attr("title", tip ? tip + " (" + bounds + ")" : bounds);
    });
  }

  /** A device, stream or inbox as a node label: short enough for the canvas. */
  function short(value) {
    const s = String(value || "").trim();
    const devicePath = /\/devices\/([^/]+)\/(:\w+)$/.exec(s);
    if (devicePath) return shorten(devicePath[1]) + " " + devicePath[2];
    if (ID.test(s)) return s.slice(0, 7) + "…";
    return shorten(s);
  }

  /** A list of several (devices) as a node label: its first entry, and how many more. */
  function shortList(value) {
    const entries = entriesOf(value);
    if (entries.length === 0) return "";
    return short(entries[0]) + (entries.length > 1 ? " +" + (entries.length - 1) : "");
  }

  function shorten(s) {
    return s.length > LABEL_MAX ? "…" + s.slice(-(LABEL_MAX - 1)) : s;
  }

  function labelStyle() {
    return this.name ? "node_label_italic" : "";
  }

  /** onadd of a flow node: with exactly one account in the workspace, use it. */
  function pickOnlyAccount() {
    if (this.account) return;
    const accounts = [];
    RED.nodes.eachConfig(function (config) {
      if (config.type === "edge-account") accounts.push(config.id);
    });
    if (accounts.length === 1) this.account = accounts[0];
  }

  /** What the picker route needs to read with the account chosen in the dialog. */
  function accountQuery() {
    const id = $("#node-input-account").val();
    const config = id && id !== "_ADD_" ? RED.nodes.node(id) : null;
    const query = { account: config ? config.id : "" };
    const creds = (config && config.credentials) || {};
    // A token typed in this session and not deployed yet: send it with the typed values.
    if (creds.token && creds.token !== "__PWRD__") {
      query.typed = {
        baseUrl: config.baseUrl,
        company: config.company,
        user: creds.user || "",
        token: creds.token,
        useTls: !!config.useTls,
        tls: config.tls || "",
        proxy: config.proxy && config.proxy !== "_ADD_" ? config.proxy : "",
      };
    }
    return query;
  }

  /**
   * One entry of the list; the field's current value (in a field of several, any value already
   * listed) is marked with a check and in bold. `value` is what the field holds once it is picked.
   */
  function completion(item, marked, value) {
    const label = $("<div/>", { style: "display: flex; justify-content: space-between;" });
    const name = $("<span/>").appendTo(label);
    if (marked) {
      label.addClass("edge-picker-current").css("font-weight", "bold");
      $("<i/>", { class: "fa fa-check", style: "margin-right: 6px;" }).appendTo(name);
    } else {
      $("<i/>", { class: "fa fa-fw", style: "margin-right: 6px;" }).appendTo(name);
    }
    $("<span/>").text(item.value).appendTo(name);
    if (item.detail) {
      $("<span/>", { style: "opacity: 0.6; margin-left: 12px; font-family: monospace;" })
        .text(item.detail)
        .appendTo(label);
    }
    return { value: value, label: label };
  }

  /** The entries of a field of several (devices): separated by commas or new lines, trimmed. */
  function entriesOf(value) {
    return String(value || "")
      .split(/[,\n]/)
      .map(function (entry) {
        return entry.trim();
      })
      .filter(function (entry) {
        return entry !== "";
      });
  }

  /**
   * Where a pick goes in a field of several: `head`, the text kept before it, and `search`, what
   * the server is asked for. Typing searches the last entry and a pick replaces it; the search
   * button lists everything and a pick is added after the last entry, with the separator the
   * field already uses (a new line once there is one, else a comma).
   */
  function lastEntry(value, all) {
    if (all) {
      const kept = value.replace(/[\s,]+$/, "");
      if (!kept) return { head: "", search: "" };
      return { head: kept + (kept.indexOf("\n") >= 0 ? "\n" : ", "), search: "" };
    }
    const cut = Math.max(value.lastIndexOf(","), value.lastIndexOf("\n"));
    let head = value.slice(0, cut + 1);
    if (/,$/.test(head)) head += " ";
    return { head: head, search: value.slice(cut + 1).trim() };
  }

  /**
   * The completions of a field of several: picking one not listed yet adds it in place of the
   * entry being typed; one already listed (marked, and last, so that Enter takes a new one) stays
   * listed once and only the entry being typed is dropped.
   */
  function manyCompletions(items, at) {
    const listed = entriesOf(at.head);
    const fresh = [];
    const already = [];
    items.forEach(function (item) {
      if (listed.indexOf(item.value) === -1)
        fresh.push(completion(item, false, at.head + item.value));
      else already.push(completion(item, true, at.head.replace(/[\s,]+$/, "")));
    });
    return fresh.concat(already);
  }

  /** The search button's title: what it lists in this field. */
  function browseTitle(kind, stream, many) {
    if (kind === "devices" && many) return text("edge.editor.browseDevicesMany");
    if (kind === "devices") return text("edge.editor.browseDevices");
    if (stream === ":command") return text("edge.editor.browseCommands");
    if (stream === ":inbox") return text("edge.editor.browseInboxes");
    return text("edge.editor.browseStreams");
  }

  /**
   * Offers the account's devices (kind "devices") or streams (kind "streams", `stream` ":command"
   * or ":inbox" for one of a device's two) in a text field. Typing narrows the list to what
   * matches; the search button lists them all, the field's current value first and marked, so
   * that another one can be picked without clearing the field first. The field stays free text: a
   * name, an id, a path or mustache can always be typed, and a line under it says when the server
   * lists nothing. With `many`, the field holds several (ids or names separated by commas or new
   * lines): the list offers what the entry being typed matches and a pick goes in its place, or
   * after the last entry when the search button lists them all (lastEntry).
   */
  function picker(input, kind, stream, many) {
    input = $(input);
    if (!input.length) return;
    const row = input.closest(".form-row");
    const hint = $("<div/>", { class: "edge-picker-hint" }).hide();
    hint.css({ margin: "4px 0 0 104px", "font-size": "0.9em", opacity: 0.8 });
    row.append(hint);
    const browse = $("<button/>", {
      type: "button",
      class: "red-ui-button edge-picker-browse",
      title: browseTitle(kind, stream, many),
    }).append($("<i/>", { class: "fa fa-search" }));
    input.css("width", "calc(70% - 40px)").after(browse).after(" ");
    // A text area of several lines: the button stays at its top, beside the first line.
    if (many) browse.css("vertical-align", "top");
    let timer;
    // Set by the search button for the next search only: list everything, not what matches.
    let listAll = false;
    function show(message) {
      if (message) hint.text(message).show();
      else hint.hide().text("");
    }
    input.autoComplete({
      minLength: 0,
      search: function (value, done) {
        clearTimeout(timer);
        const current = value.trim();
        const typed = many ? lastEntry(value, false).search : value;
        if (!listAll && typed.indexOf("{{") >= 0) {
          show("");
          done([]);
          return;
        }
        timer = setTimeout(function () {
          // Read here, not when the search starts: the button's focus can start a search that
          // the keyup's replaces before its timer fires, and the list-all request went with the
          // replaced one (the button then listed only what matched the field).
          // Where the pick goes (lastEntry); a single field's pick replaces it all.
          const at = many ? lastEntry(value, listAll) : { head: "", search: value };
          if (listAll) at.search = "";
          listAll = false;
          const body = accountQuery();
          if (!body.account) {
            show(text("edge.editor.pickAccount"));
            done([]);
            return;
          }
          body.kind = kind;
          body.search = at.search;
          if (stream) body.stream = stream;
          $.ajax({
            url: "edge-account/directory",
            type: "POST",
            contentType: "application/json",
            data: JSON.stringify(body),
            dataType: "json",
            timeout: 60000,
          })
            .done(function (answer) {
              answer = answer || {};
              if (answer.unsupported) show(text("edge.editor.unsupported"));
              else if (answer.needsDeploy) show(text("edge.editor.needsDeploy"));
              else if (answer.error) show(answer.error);
              else if (answer.items && answer.items.length === 0)
                show(text("edge.editor.noMatch", { search: at.search }));
              else if (answer.truncated) show(text("edge.editor.truncated"));
              else if (answer.proxy) show(text("edge.editor.viaProxy", { proxy: answer.proxy }));
              else show("");
              const items = (answer.items || []).slice();
              if (many) {
                done(manyCompletions(items, at));
                return;
              }
              // The current one first: Enter, which takes the first entry, then keeps it.
              const first = items.findIndex(function (item) {
                return item.value === current;
              });
              if (first > 0) items.unshift(items.splice(first, 1)[0]);
              done(
                items.map(function (item) {
                  return completion(item, item.value === current, item.value);
                }),
              );
            })
            .fail(function (xhr, status) {
              // Node-RED answers 401 to a reader who sends typed values (they need write).
              if (body.typed && xhr && xhr.status === 401) show(text("edge.editor.needsWrite"));
              else show(text("edge.editor.failed", { message: (xhr && xhr.status) || status }));
              done([]);
            });
        }, 150);
      },
    });
    browse.on("click", function (e) {
      e.preventDefault();
      listAll = true;
      input.trigger("focus");
      // The autoComplete widget lists on any key other than Enter, Tab, Escape or Delete.
      input.trigger($.Event("keyup", { keyCode: 40 }));
    });
  }

  /**
   * What mustache says of a template it cannot read ("Unclosed tag at 25"), or "" when it reads it:
   * mustache's own parse, the one the runtime uses (nodes/lib/node-red/render.ts), from the
   * package's mustache served beside this script (scripts/build.js). `{{payload}` was valid in the
   * dialog and failed at Deploy (issue 37). Without it (a page that failed to load it), the dialog
   * says nothing and Deploy still refuses the template.
   */
  function templateProblem(template) {
    const s = String(template || "");
    const mustache = window.EdgeMustache;
    if (s.indexOf("{{") < 0 || !mustache || typeof mustache.parse !== "function") return "";
    try {
      mustache.parse(s);
      return "";
    } catch (err) {
      return err && err.message ? err.message : String(err);
    }
  }

  /** The sentence of the runtime's bad-template error for a template it cannot read, or "". */
  function templateSentence(template, what) {
    const why = templateProblem(template);
    return why ? text("edge.errors.bad-template", { what: what, detail: why }) : "";
  }

  /**
   * A validator of a property that may hold mustache (Device, Stream, Inbox, Devices, Filter),
   * named in the message by the dialog's label. `when`, given the node, says whether the runtime
   * reads the property (a send node's Device only when it sends to a device).
   */
  function templateValidator(type, field, when) {
    return function (v, _opt) {
      if (when && !when(this || {})) return true;
      const label = nodeText(type, "label." + field).replace(/\s*\([^)]*\)$/, "");
      return templateSentence(v, label) || true;
    };
  }

  /**
   * The text of Elems as JSON once its mustache tags are filled: a tag stands for a value (`0`,
   * which is valid both as a number and inside a string), a section or comment tag for nothing.
   * Answers the problem as a sentence, or "" when the text is a JSON object (or blank).
   */
  function elemsProblem(value) {
    const s = String(value || "");
    if (!s.trim()) return "";
    // Mustache reads the template before anything is JSON: an unclosed tag fails there at Deploy.
    const template = templateSentence(s, "Elems");
    if (template) return template;
    const filled = s
      .replace(/\{\{\{[^}]*\}\}\}/g, "0")
      .replace(/\{\{\s*[#^/!>&][^}]*\}\}/g, "")
      .replace(/\{\{[^}]*\}\}/g, "0");
    let parsed;
    try {
      parsed = JSON.parse(filled);
    } catch (err) {
      return text("edge.editor.elemsJson", { detail: err.message });
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      return text("edge.editor.elemsObject");
    if (Object.keys(parsed).length === 0) return text("edge.editor.elemsEmpty");
    return "";
  }

  /** The validator of the stored Elems property. */
  function elemsValidator(v, _opt) {
    return elemsProblem(v) || true;
  }

  /**
   * A code editor for Elems over the hidden input `#node-input-elems`, checked as it is typed.
   * Returns what oneditsave / oneditcancel call: the editor is read once and disposed once, and
   * its change listener is removed first, so nothing touches a disposed model.
   */
  function elemsEditor(node) {
    const hidden = $("#node-input-elems");
    const problem = $("#node-edge-elems-problem");
    const editor = RED.editor.createEditor({
      id: "node-input-elems-editor",
      mode: "text",
      value: hidden.val(),
    });
    let live = true;
    function check() {
      if (!live) return;
      const why = elemsProblem(editor.getValue());
      problem.text(why).toggle(!!why);
      $("#node-input-elems-editor").toggleClass("input-error", !!why);
    }
    editor.on("change", check);
    check();
    node.editor = editor;
    return function finish(save) {
      if (!live) return;
      live = false;
      if (save) hidden.val(editor.getValue());
      editor.destroy();
      delete node.editor;
    };
  }

  /**
   * Fills `#node-input-store` with the context stores configured in settings.js; empty means
   * Node-RED's default store. A store no longer configured stays visible rather than lost.
   */
  function storeSelect(node, type) {
    const context = RED.settings.context || {};
    const stores = context.stores || [];
    const select = $("#node-input-store");
    let byDefault = nodeText(type, "store.default");
    if (context.default) byDefault += " (" + context.default + ")";
    select.empty().append($("<option></option>").val("").text(byDefault));
    stores.forEach(function (name) {
      select.append($("<option></option>").val(name).text(name));
    });
    if (node.store && stores.indexOf(node.store) === -1) {
      select.append(
        $("<option></option>")
          .val(node.store)
          .text(nodeText(type, "store.missing", { store: node.store })),
      );
    }
    select.val(node.store || "");
  }

  /** The rows every node names alike, with the same icon (and placeholder) wherever they stand. */
  const COMMON = {
    account: { icon: "user-circle" },
    name: { icon: "tag", placeholder: true },
    store: { icon: "database", options: [] },
  };

  /** An element as HTML; attributes without a value are left out. */
  function el(tag, attributes, inner) {
    let html = "<" + tag;
    Object.keys(attributes).forEach(function (name) {
      const value = attributes[name];
      if (value !== undefined && value !== "") html += " " + name + '="' + value + '"';
    });
    return inner === undefined ? html + " />" : html + ">" + inner + "</" + tag + ">";
  }

  /** An icon and a catalog text: what every label and button shows. */
  function caption(iconName, key) {
    return el("i", { class: "fa fa-" + iconName }, "") + " " + el("span", { "data-i18n": key }, "");
  }

  /** What the rows of one node's form are named by: ids, input prefix and catalog keys. */
  function namesOf(type) {
    const config = type === ACCOUNT;
    return {
      type: type,
      input: config ? "node-config-input-" : "node-input-",
      own: (config ? "node-config-" : "node-") + type + "-",
      key: type + ".",
    };
  }

  /** A labelled text input or select; `wide` is the folded rows' wider label and narrower input. */
  function fieldRow(n, row, wide) {
    const spec = Object.assign({}, COMMON[row.field], row);
    const id = n.input + spec.field;
    const hints = [];
    if (spec.placeholder) hints.push("[placeholder]" + n.key + "placeholder." + spec.field);
    if (spec.tip) hints.push("[title]" + n.key + "tip." + spec.field);
    const width = spec.width || (wide ? "120px" : spec.options ? "70%" : undefined);
    let input;
    if (spec.options) {
      const options = spec.options.map(function (value) {
        return el("option", { value: value, "data-i18n": n.key + "option." + value }, "");
      });
      input = el("select", { id: id, style: "width: " + width + ";" }, options.join(""));
    } else if (spec.lines) {
      input = el(
        "textarea",
        {
          id: id,
          rows: spec.lines,
          style: "resize: vertical;" + (width ? " width: " + width + ";" : ""),
          "data-i18n": hints.join(";"),
        },
        "",
      );
    } else {
      input = el("input", {
        type: spec.type || "text",
        id: id,
        autocomplete: spec.autocomplete,
        style: width && "width: " + width + ";",
        "data-i18n": hints.join(";"),
      });
    }
    const label = el(
      "label",
      { for: id, style: wide ? "width: 160px;" : undefined },
      caption(spec.icon, n.key + "label." + spec.field),
    );
    const rowAttributes = {
      class: "form-row",
      id: spec.row && n.own + spec.row + "-row",
      style: spec.gap ? "margin-top: 12px;" : undefined,
    };
    return el("div", rowAttributes, label + " " + input);
  }

  /** A checkbox with its label after it, set off from the rows above. */
  function checkboxRow(n, field) {
    const box = el("input", {
      type: "checkbox",
      id: n.input + field,
      style: "display: inline-block; width: auto; vertical-align: top; margin-right: 4px;",
    });
    const label = el(
      "label",
      { for: n.input + field, style: "width: auto;" },
      box + " " + el("span", { "data-i18n": n.key + "label." + field }, ""),
    );
    return el("div", { class: "form-row", style: "margin-top: 12px;" }, label);
  }

  /** A button under the fields, and the line where the node's script says how it went. */
  function buttonRow(n, row) {
    const button = el(
      "button",
      {
        type: "button",
        class: "red-ui-button",
        id: n.own + row.button,
        "data-i18n": "[title]" + n.key + "tip." + row.button,
      },
      caption(row.icon, n.key + "label." + row.button),
    );
    const result = el(
      "div",
      {
        id: n.own + row.button + "-result",
        style: "display: none; margin: 6px 0 0 104px; white-space: normal; word-break: break-word;",
      },
      "",
    );
    return el(
      "div",
      { class: "form-row" },
      el("label", {}, "&nbsp;") + " " + button + " " + result,
    );
  }

  /** A header link that folds the rows under it; the node's script opens and closes it. */
  function foldRows(n, row) {
    const link = el(
      "a",
      {
        href: "#",
        id: n.own + row.fold + "-toggle",
        style: "font-weight: bold; text-decoration: none;",
      },
      el("i", { class: "fa fa-caret-right", style: "width: 10px;" }, "") +
        " " +
        el("span", { "data-i18n": n.key + "label." + row.fold }, ""),
    );
    const hint = el(
      "span",
      {
        style: "margin-left: 8px; opacity: 0.7;",
        "data-i18n": n.key + "label." + row.fold + "Hint",
      },
      "",
    );
    const header = el(
      "div",
      { class: "form-row", style: "margin-top: 12px; margin-bottom: 6px;" },
      link + " " + hint,
    );
    const rows = row.rows.map(function (inner) {
      return fieldRow(n, inner, true);
    });
    return (
      header + el("div", { id: n.own + row.fold, style: "padding-left: 14px;" }, rows.join(""))
    );
  }

  /** Elems: a hidden input that holds the text, the code editor over it and its problem line. */
  function elemsRows(n) {
    const label = el(
      "label",
      { for: n.input + "elems-editor" },
      caption("file-code-o", n.key + "label.elems"),
    );
    const hidden = el("input", { type: "hidden", id: n.input + "elems" });
    const editor = el(
      "div",
      {
        style: "height: 140px; min-height: 100px;",
        class: "node-text-editor",
        id: n.input + "elems-editor",
      },
      "",
    );
    const problem = el(
      "div",
      {
        class: "form-tips edge-elems-problem",
        id: "node-edge-elems-problem",
        style: "display: none; color: var(--red-ui-text-color-error, #c02020);",
      },
      "",
    );
    return (
      el("div", { class: "form-row", style: "margin-bottom: 0;" }, label + " " + hidden) +
      el("div", { class: "form-row node-text-editor-row" }, editor) +
      problem
    );
  }

  function rowHtml(n, row) {
    if (row.field) return fieldRow(n, row, false);
    if (row.tips)
      return el("div", { class: "form-tips", "data-i18n": n.key + "tip." + row.tips }, "");
    if (row.note) return el("div", { class: "form-tips", id: n.own + row.note }, "");
    if (row.checkbox) return checkboxRow(n, row.checkbox);
    if (row.button) return buttonRow(n, row);
    if (row.fold) return foldRows(n, row);
    if (row.elems) return elemsRows(n);
    throw new Error(n.type + ": a form row of no known kind: " + JSON.stringify(row));
  }

  /**
   * The HTML of a node's dialog from the rows its .html lists, each one of:
   * - `{ field, icon }`: a labelled text input, with `placeholder`/`tip` (the catalog's
   *   `placeholder.<field>`/`tip.<field>`), `type` ("password"), `autocomplete`, `width`, `row`
   *   (an id to show and hide the row by), `gap` (space above it) and `picker` (the kind and
   *   stream `picker` offers in it); with `options`, a select of those values (the catalog's
   *   `option.<value>`); with `lines`, a text area of that many rows, whose picker adds to the
   *   list it holds rather than replacing it. account, name and store need no icon;
   * - `{ tips: key }`, a form tip from the catalog; `{ note: name }`, one the node's script fills;
   * - `{ checkbox: field }`; `{ button: name, icon }`, with a line for its result under it;
   *   `{ fold: name, rows }`, rows folded under a header link; `{ elems: true }`, the Elems editor.
   */
  function formHtml(type, rows) {
    const n = namesOf(type);
    return rows
      .map(function (row) {
        return rowHtml(n, row);
      })
      .join("\n");
  }

  /** Each node's form rows, by type, as form() took them: what prepare() fills and watches. */
  const rowsOf = {};

  /**
   * Writes a node's dialog, built from `rows` (formHtml), into its template element. Node-RED
   * reads the dialog from that element each time it opens one and fills and watches the inputs
   * named after the properties before oneditprepare: the form is written here, once, when the
   * node's .html runs, so every input is there before Node-RED looks for it.
   */
  function form(type, rows) {
    const html = formHtml(type, rows);
    rowsOf[type] = rows;
    forms[type] = html;
    // The .html keeps the node's template element, empty, where Node-RED and a reader look for the
    // form. Node-RED appends a node set's elements before it runs its scripts, so the element is
    // there; were it not, the form goes into one of its own, which comes first and is the one read.
    let template = $('script[data-template-name="' + type + '"]');
    if (!template.length) {
      template = $('<script type="text/html"></script>')
        .attr("data-template-name", type)
        .appendTo("#red-ui-editor-node-configs");
    }
    template.first().text(html);
  }

  /**
   * The rows the await and fleet nodes end their dialogs with alike: how long to wait for a
   * command's result and how often to read (`timeoutIcon` and `gap` as each dialog shows them),
   * the store of the waits, the name and the tips on the outputs and the store.
   */
  function waitRows(timeoutIcon, gap) {
    return [
      { field: "timeout", icon: timeoutIcon, placeholder: true, width: "70%", gap: gap },
      { field: "interval", icon: "refresh", width: "100px" },
      { field: "store" },
      { field: "name" },
      { tips: "outputs" },
      { tips: "store" },
    ];
  }

  /**
   * What every node's oneditprepare does first: number fields say their default and range, the
   * pickers its form names, the store select, and the Elems editor (finished by finish()).
   */
  function prepare(node, type) {
    const rows = rowsOf[type] || [];
    const input = namesOf(type).input;
    numberHints(type, input.slice(0, -1));
    rows.forEach(function (row) {
      if (row.picker) picker("#" + input + row.field, row.picker[0], row.picker[1], !!row.lines);
      if (row.field === "store") storeSelect(node, type);
      if (row.elems) node.finishElems = elemsEditor(node);
    });
  }

  /** oneditsave (`save`) or oneditcancel of a node with Elems: reads and disposes its editor. */
  function finish(node, save) {
    if (!node.finishElems) return;
    node.finishElems(save);
    delete node.finishElems;
  }

  /** Each registered node's form, as its dialog is built from it. */
  const forms = {};

  // What the nodes' .html files use: each registers its own type with RED.nodes.registerType (the
  // Flow Library's scorecard reads that call), and takes what they share from here.
  window.EdgeEditor = {
    form: form,
    waitRows: waitRows,
    prepare: prepare,
    finish: finish,
    forms: forms,
    labelStyle: labelStyle,
    pickOnlyAccount: pickOnlyAccount,
    integer: integer,
    oneOf: oneOf,
    elemsValidator: elemsValidator,
    templateValidator: templateValidator,
    templateProblem: templateProblem,
    short: short,
    shortList: shortList,
    text: text,
  };
})();
