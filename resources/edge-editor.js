// What the editor dialogs of every edge node share, loaded once by each node's .html from this
// package's resources/ folder: number validators that say their range, short labels, the account
// picked for a new node, the device and stream pickers, and the Elems editor. Ranges and defaults
// come from the runtime (RED.settings.<type>Ranges, exported by registerType), never typed here.
(function () {
  "use strict";
  if (window.EdgeEditor) return;

  const MODULE = "@edgewire/node-red-edge-device";
  /** An id of the service: a type letter and 24 lowercase hex digits. */
  const ID = /^[a-z][0-9a-f]{24}$/;
  const LABEL_MAX = 24;

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
      };
    }
    return query;
  }

  function completion(item) {
    const label = $("<div/>", { style: "display: flex; justify-content: space-between;" });
    $("<span/>").text(item.value).appendTo(label);
    if (item.detail) {
      $("<span/>", { style: "opacity: 0.6; margin-left: 12px; font-family: monospace;" })
        .text(item.detail)
        .appendTo(label);
    }
    return { value: item.value, label: label };
  }

  /**
   * Offers the account's devices (kind "devices") or streams (kind "streams", `stream` ":command"
   * or ":inbox" for one of a device's two) in a text field. The field stays free text: a name, an
   * id, a path or mustache can always be typed, and a line under it says when the server lists
   * nothing.
   */
  function picker(input, kind, stream) {
    input = $(input);
    if (!input.length) return;
    const row = input.closest(".form-row");
    const hint = $("<div/>", { class: "edge-picker-hint" }).hide();
    hint.css({ margin: "4px 0 0 104px", "font-size": "0.9em", opacity: 0.8 });
    row.append(hint);
    const browse = $("<button/>", {
      type: "button",
      class: "red-ui-button edge-picker-browse",
      title: text("edge.editor.browse"),
    }).append($("<i/>", { class: "fa fa-search" }));
    input.css("width", "calc(70% - 40px)").after(browse).after(" ");
    let timer;
    function show(message) {
      if (message) hint.text(message).show();
      else hint.hide().text("");
    }
    input.autoComplete({
      minLength: 0,
      search: function (value, done) {
        clearTimeout(timer);
        if (value.indexOf("{{") >= 0) {
          show("");
          done([]);
          return;
        }
        timer = setTimeout(function () {
          const body = accountQuery();
          if (!body.account) {
            show(text("edge.editor.pickAccount"));
            done([]);
            return;
          }
          body.kind = kind;
          body.search = value;
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
                show(text("edge.editor.noMatch", { search: value }));
              else if (answer.truncated) show(text("edge.editor.truncated"));
              else show("");
              done((answer.items || []).map(completion));
            })
            .fail(function (xhr, status) {
              show(text("edge.editor.failed", { message: (xhr && xhr.status) || status }));
              done([]);
            });
        }, 150);
      },
    });
    browse.on("click", function (e) {
      e.preventDefault();
      input.trigger("focus");
      // The autoComplete widget lists on any key other than Enter, Tab, Escape or Delete.
      input.trigger($.Event("keyup", { keyCode: 40 }));
    });
  }

  /**
   * The text of Elems as JSON once its mustache tags are filled: a tag stands for a value (`0`,
   * which is valid both as a number and inside a string), a section or comment tag for nothing.
   * Answers the problem as a sentence, or "" when the text is a JSON object (or blank).
   */
  function elemsProblem(value) {
    const s = String(value || "");
    if (!s.trim()) return "";
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

  window.EdgeEditor = {
    integer: integer,
    numberHints: numberHints,
    short: short,
    labelStyle: labelStyle,
    pickOnlyAccount: pickOnlyAccount,
    picker: picker,
    elemsProblem: elemsProblem,
    elemsValidator: elemsValidator,
    elemsEditor: elemsEditor,
    storeSelect: storeSelect,
    text: text,
  };
})();
