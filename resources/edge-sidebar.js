// The editor's "edge devices" sidebar tab: per deployed account its health, pending commands
// (await waits, one page of them), watched streams and fleet jobs (nodes/edge-account/sidebar.ts).
// While the tab is shown it subscribes every BEAT_MS with the page it shows of each account; the
// answer to a subscribe that asks for it is a snapshot (on opening, on a page turned, after a
// cancel), and the runtime publishes changes of the pages asked on TOPIC over the editor's comms,
// each marked with its view: this page takes those of its own. Ages are counted here, so an
// unchanged list costs the runtime nothing to keep current.
// Each render builds the tab afresh off the page and then changes the shown tab to match it
// (morph), element by element, rows matched by their data-key: a row's Cancel button stays the
// same element while the runtime publishes and the ages tick. Rebuilt at every render, as it once
// was (every 250-500 ms), a button pressed just before a render was gone when it was released,
// and the click did nothing. Clicks are handled on the tab itself and read what they act on from
// the button's data attributes, which the morph keeps current.
(function () {
  "use strict";
  if (window.EdgeSidebar) return;
  var MODULE = "@edgewire/node-red-edge-device";
  var TOPIC = "edgewire/sidebar";
  var BEAT_MS = 5000;
  /** Tells the runtime which pages this editor shows; random, per page load. */
  var CLIENT = Math.random().toString(36).slice(2, 10) + Math.random().toString(36).slice(2, 10);
  var content;
  var last;
  /** The offset of the page of waits shown, per account id; absent for the first page. */
  var pages = {};
  /**
   * Whether an account's section is folded to its heading and summary line, per account id, once
   * its heading was clicked; until then the first account is open and the others folded, so that
   * a second account's heading is not below the whole of the first one's.
   */
  var folded = {};
  /** The runtime's name for `pages` (its answer to the last subscribe); null while one runs. */
  var view = null;

  function _(key, params) {
    return RED._(MODULE + "/edge-account:edge-account.sidebar." + key, params);
  }

  /**
   * An error code in the few words every node's status uses for it (edge.short: "proxy refused",
   * "HTTP 503"), with its HTTP status where the words leave it out; the code where none exist.
   */
  function short(code, status) {
    var key = MODULE + "/edge-account:edge.short." + code;
    var text = RED._(key, { status: status || "", apiStatus: "", what: "" });
    if (!text || text.indexOf("edge.short.") >= 0) text = code;
    return status && text.indexOf(String(status)) < 0 ? text + " " + status : text;
  }

  function visible() {
    return !!content && content.is(":visible");
  }

  /** "4 s", "3 min", "2 h": how long ago, or how long until, `ms` milliseconds. */
  function span(ms) {
    var s = Math.max(0, Math.round(ms / 1000));
    if (s < 120) return s + " s";
    if (s < 7200) return Math.round(s / 60) + " min";
    return Math.round(s / 3600) + " h";
  }

  function time(at) {
    return at === undefined || at === null ? _("none") : new Date(at).toLocaleTimeString();
  }

  /**
   * What the workspace shows on the node: its type's label function (the name, else its devices,
   * stream or inbox), as the canvas calls it. It once showed an unnamed node as its type
   * ("edge-fleet-command · 3 devices") where the canvas had a good label.
   */
  function nodeLabel(id) {
    var node = RED.nodes.node(id);
    if (!node) return id;
    var label = RED.utils.getNodeLabel(node, "");
    return label || node.name || node.type;
  }

  /** A link that reveals the node in the workspace (the tab's click handler, init). */
  function nodeLink(id) {
    return $('<a href="#" class="edge-sidebar-node"></a>')
      .text(nodeLabel(id))
      .attr("data-node", id);
  }

  /** Read-only users (adminAuth's "read") are not offered a Cancel the runtime would refuse. */
  function mayCancel() {
    return !RED.user || !RED.user.hasPermission || RED.user.hasPermission("edge-account.write");
  }

  function button(cls, text, data) {
    var b = $('<button type="button" class="red-ui-button red-ui-button-small"></button>')
      .addClass(cls)
      .text(text);
    Object.keys(data).forEach(function (key) {
      b.attr("data-" + key, data[key]);
    });
    return b;
  }

  /** A compact row: the sidebar is narrow, so each wait or watch is a block of short lines. */
  function line(parts) {
    var div = $('<div class="edge-sidebar-line"></div>');
    parts.forEach(function (part, i) {
      if (i > 0) div.append(" · ");
      if (part instanceof $) div.append(part);
      else $("<span></span>").text(part).appendTo(div);
    });
    return div;
  }

  function labelled(key, value) {
    return _(key) + " " + value;
  }

  var BLOCK_STYLE =
    "border-bottom: 1px solid var(--red-ui-secondary-border-color, #ddd); padding: 4px 0; " +
    "overflow-wrap: anywhere";

  function cancel(body) {
    $.ajax({
      url: "edge-account/sidebar/cancel",
      type: "POST",
      contentType: "application/json",
      data: JSON.stringify(body),
      dataType: "json",
    })
      .done(refresh)
      .fail(function (xhr) {
        if (xhr.status === 401 || xhr.status === 403) RED.notify(_("forbidden"), "warning");
      });
  }

  function healthOf(account) {
    var h = account.health;
    var t = $('<table class="red-ui-info-table edge-sidebar-health"></table>');
    function row(key, value) {
      var tr = $("<tr></tr>").appendTo(t);
      $("<td></td>").text(_(key)).appendTo(tr);
      $("<td></td>").text(value).appendTo(tr);
    }
    row("perSecond", h.perSecond + " / " + (h.limit > 0 ? h.limit : "∞"));
    // HTTP requests of the account; a fleet job's devices are "Devices sending", in its row.
    row("requestsInFlight", h.inFlight + " / " + h.concurrent);
    row("queued", h.queued + " / " + h.queueMax);
    row("last429", h.last429 ? span(h.last429.ms) + ", " + time(h.last429.at) : _("none"));
    row(
      "lastError",
      h.lastError
        ? short(h.lastError.code, h.lastError.status) + ", " + time(h.lastError.at)
        : _("none"),
    );
    row("token", h.tokenRefused ? _("tokenRefused") : _("tokenOk"));
    return t;
  }

  function pendingOf(account, now) {
    var box = $("<div></div>");
    var p = account.pending;
    if (!p || p.total === 0) return box.append($("<p></p>").text(_("noWaits")));
    if (p.total > p.pageSize) box.append(pagerOf(account.id, p));
    p.devices.forEach(function (d) {
      var head = $('<div class="edge-sidebar-device" style="margin-top: 6px"></div>').appendTo(box);
      $("<b></b>").text(d.device).appendTo(head);
      head.attr("data-key", "device:" + d.device);
      $("<span></span>")
        .text(" · " + _("waits", { count: d.count }) + " ")
        .appendTo(head);
      if (mayCancel())
        head.append(
          button("edge-sidebar-cancel-all", _("cancelAll"), {
            account: account.id,
            device: d.device,
          }),
        );
      d.rows.forEach(function (r) {
        var row = $('<div class="edge-sidebar-wait"></div>')
          .attr("data-wait", r.id)
          .attr("data-key", "wait:" + r.id)
          .attr("style", BLOCK_STYLE + "; padding-left: 10px")
          .appendTo(box);
        if (mayCancel())
          row.append(
            button("edge-sidebar-cancel", _("cancel"), { account: account.id, wait: r.id }).attr(
              "style",
              "float: right",
            ),
          );
        row.append(
          line([$("<code></code>").text(r.commandId || "-"), nodeLink(r.node)]).append(
            r.restored ? " (" + _("restored") + ")" : "",
          ),
        );
        if (r.elems)
          row.append(
            $('<div class="edge-sidebar-elems"></div>').append(
              $('<code style="white-space: normal; overflow-wrap: anywhere"></code>').text(r.elems),
            ),
          );
        row.append(
          line([
            labelled("age", span(now - r.startedAt)),
            labelled("deadline", time(r.deadline) + " (" + span(r.deadline - now) + ")"),
            labelled("ttl", r.ttl ? span(r.ttl) : "-"),
          ]),
        );
      });
    });
    return box;
  }

  /** Older and newer pages of the waits, oldest first: the runtime sends one page at a time. */
  function pagerOf(accountId, p) {
    var rows = p.devices.reduce(function (n, d) {
      return n + d.rows.length;
    }, 0);
    var bar = $('<div class="edge-sidebar-pager" style="margin-top: 6px"></div>');
    function turn(key, offset, enabled) {
      button("edge-sidebar-" + key, _(key), { account: accountId, offset: offset })
        .addClass("edge-sidebar-turn")
        .prop("disabled", !enabled)
        .appendTo(bar);
    }
    turn("older", Math.max(0, p.offset - p.pageSize), p.offset > 0);
    $('<span class="edge-sidebar-range" style="margin: 0 6px"></span>')
      .text(_("page", { from: p.offset + 1, to: p.offset + rows, total: p.total }))
      .appendTo(bar);
    turn("newer", p.offset + p.pageSize, p.offset + p.pageSize < p.total);
    return bar;
  }

  /**
   * A job's state with the one count the node's status and the report use, the devices whose
   * outcome is complete of all ("running: 4/12 complete", "cancelled: 5/12 complete"): never the
   * devices that ended, which would read 12/12 for a job that sent 6.
   */
  function jobState(r) {
    var ended = r.endedAt !== undefined && r.endedAt !== null;
    var count = _("count", { complete: r.complete, total: r.total });
    var text = ended ? _("end." + r.state, { progress: count }) : _(r.state) + ": " + count;
    return text + (r.restored ? " (" + _("restored") + ")" : "");
  }

  function jobsOf(account) {
    var box = $('<div class="edge-sidebar-jobs"></div>');
    var j = account.jobs;
    if (!j || j.rows.length === 0) return box.append($("<p></p>").text(_("noJobs")));
    j.rows.forEach(function (r) {
      var ended = r.endedAt !== undefined && r.endedAt !== null;
      // The id (a UUID when msg.job gave no name) only in the tooltip: the row is read by the
      // job's name, else its node, with its devices and start.
      var row = $('<div class="edge-sidebar-job"></div>')
        .attr("style", BLOCK_STYLE)
        .attr("data-key", "job:" + r.id)
        .attr("data-job", r.id)
        .attr("data-state", r.state)
        .attr("title", _("jobId", { job: r.job }))
        .appendTo(box);
      if (!ended && r.state === "running" && mayCancel())
        row.append(
          button("edge-sidebar-cancel-job", _("cancelJob"), {
            account: account.id,
            job: r.id,
          }).attr("style", "float: right"),
        );
      var head = [];
      if (r.named) head.push($('<b class="edge-sidebar-job-name"></b>').text(r.job));
      head.push(nodeLink(r.node));
      head.push(_("jobDevices", { count: r.total }));
      head.push($('<span class="edge-sidebar-state"></span>').text(jobState(r)));
      row.append(line(head));
      // Ended commands over all devices: the bar fills as the job nears its end.
      var done = r.complete + r.fault + r.timedOut + r.failed;
      var share = r.total > 0 ? Math.min(100, Math.round((done / r.total) * 100)) : 0;
      if (ended) share = 100;
      $('<div class="edge-sidebar-progress"></div>')
        .attr(
          "style",
          "height: 6px; margin: 3px 0; background: var(--red-ui-secondary-border-color, #ddd)",
        )
        .append(
          $("<div></div>").attr(
            "style",
            "height: 100%; width: " +
              share +
              "%; background: var(--red-ui-text-color-link, #0070c0)",
          ),
        )
        .appendTo(row);
      var times = [
        labelled("sent", r.sent + " / " + r.total),
        labelled("devicesSending", r.inFlight),
        labelled("started", time(r.startedAt)),
      ];
      if (ended) times.push(labelled("ended", time(r.endedAt)));
      row.append(line(times));
      // The sidebar is narrow: an outcome no device had is left out, but for complete.
      var outcomes = [r.complete + " " + _("complete")];
      ["fault", "timedOut", "failed", "notSent"].forEach(function (key) {
        if (r[key] > 0) outcomes.push(r[key] + " " + _(key));
      });
      row.append(line(outcomes));
    });
    if (j.total > j.rows.length)
      box.append($("<p></p>").text(_("more", { count: j.total - j.rows.length })));
    return box;
  }

  function watchesOf(account, now) {
    var box = $("<div></div>");
    var w = account.watches;
    if (!w || w.rows.length === 0) return box.append($("<p></p>").text(_("noWatches")));
    w.rows.forEach(function (r) {
      var row = $('<div class="edge-sidebar-watch"></div>')
        .attr("style", BLOCK_STYLE)
        .attr("data-key", "watch:" + r.stream)
        .appendTo(box);
      var nodes = $("<span></span>");
      r.nodes.forEach(function (id, i) {
        if (i > 0) nodes.append(", ");
        nodes.append(nodeLink(id));
      });
      row.append(line([$("<code></code>").text(r.stream), nodes]));
      row.append(
        line([
          labelled("interval", r.intervalMs ? span(r.intervalMs) : "-"),
          labelled("lastRead", r.lastRead ? time(r.lastRead) : _("none")),
          labelled("lastEvent", r.lastEvent ? time(r.lastEvent) : _("none")),
          // How late the next read is against the watch's interval.
          labelled(
            "lag",
            r.lastRead && r.state === "reading"
              ? span(Math.max(0, now - r.lastRead - r.intervalMs))
              : "-",
          ),
        ]),
      );
      var why = r.reason ? " (" + short(r.reason.code, r.reason.status) + ")" : "";
      row.append(
        line([
          labelled("delivered", r.delivered),
          labelled("gaps", r.gaps),
          $('<span class="edge-sidebar-state"></span>').text(_(r.state) + why),
        ]),
      );
    });
    if (w.total > w.rows.length)
      box.append($("<p></p>").text(_("more", { count: w.total - w.rows.length })));
    return box;
  }

  /** Whether the shown node `live` can be changed into `fresh` rather than replaced by it. */
  function sameKind(live, fresh) {
    if (live.nodeType !== fresh.nodeType || live.nodeName !== fresh.nodeName) return false;
    if (live.nodeType !== 1) return true;
    return live.getAttribute("data-key") === fresh.getAttribute("data-key");
  }

  /** Changes the shown element `live` to match `fresh`: its attributes, then its children. */
  function morph(live, fresh) {
    if (live.nodeType !== 1) {
      if (live.nodeValue !== fresh.nodeValue) live.nodeValue = fresh.nodeValue;
      return;
    }
    var i;
    for (i = live.attributes.length - 1; i >= 0; i--) {
      var gone = live.attributes[i].name;
      if (!fresh.hasAttribute(gone)) live.removeAttribute(gone);
    }
    for (i = 0; i < fresh.attributes.length; i++) {
      var a = fresh.attributes[i];
      if (live.getAttribute(a.name) !== a.value) live.setAttribute(a.name, a.value);
    }
    // A button's disabled state is a property too (the pager's).
    if (live.disabled !== fresh.disabled) live.disabled = fresh.disabled;
    morphChildren(live, fresh);
  }

  /**
   * The children of `live` made those of `fresh`, in order: a keyed child (data-key) is the shown
   * one of that key wherever it was, an unkeyed one the shown one at its place if of its kind;
   * others are taken from `fresh`, and shown ones left over are removed.
   */
  function morphChildren(live, fresh) {
    var keyed = {};
    var i;
    for (i = 0; i < live.childNodes.length; i++) {
      var k = live.childNodes[i].nodeType === 1 && live.childNodes[i].getAttribute("data-key");
      if (k) keyed[k] = live.childNodes[i];
    }
    var wanted = Array.prototype.slice.call(fresh.childNodes);
    for (i = 0; i < wanted.length; i++) {
      var f = wanted[i];
      var at = live.childNodes[i] || null;
      var key = f.nodeType === 1 && f.getAttribute("data-key");
      var match = key ? keyed[key] : at;
      if (key) delete keyed[key];
      if (match && sameKind(match, f)) {
        morph(match, f);
        if (match !== at) live.insertBefore(match, at);
      } else {
        live.insertBefore(f, at);
      }
    }
    while (live.childNodes.length > wanted.length) live.removeChild(live.lastChild);
  }

  function render(snapshot) {
    last = snapshot;
    if (!content) return;
    // Ages count from the runtime's clock, not the browser's.
    var now = Date.now() - (snapshot.receivedAt - snapshot.at);
    var fresh = $("<div></div>");
    build(fresh, snapshot, now);
    morphChildren(content[0], fresh[0]);
  }

  /** An account's section in one line: what its heading says when the section is folded. */
  function summaryOf(account) {
    if (account.configError) return _("configError", { code: short(account.configError) });
    var running = ((account.jobs && account.jobs.rows) || []).filter(function (r) {
      return r.endedAt === undefined || r.endedAt === null;
    }).length;
    return _("summary", {
      pending: account.pending ? account.pending.total : 0,
      watches: account.watches ? account.watches.total : 0,
      jobs: running,
    });
  }

  function build(box, snapshot, now) {
    if (snapshot.accounts.length === 0) box.append($("<p></p>").text(_("empty")));
    snapshot.accounts.forEach(function (account, index) {
      var isFolded = account.id in folded ? folded[account.id] : index > 0;
      var section = $('<div class="edge-sidebar-account"></div>')
        .attr("data-account", account.id)
        .attr("data-key", "account:" + account.id)
        .attr("data-folded", isFolded ? "true" : "false")
        .appendTo(box);
      // The account is a config node, not on any tab: nothing to reveal. Its heading folds it.
      var head = $('<h3 class="edge-sidebar-account-head" style="cursor: pointer"></h3>')
        .attr("data-account", account.id)
        .attr("title", _(isFolded ? "unfold" : "fold"))
        .appendTo(section);
      $("<i></i>")
        .attr("class", "fa fa-fw " + (isFolded ? "fa-angle-right" : "fa-angle-down"))
        .appendTo(head);
      $("<span></span>")
        .text(account.name || nodeLabel(account.id))
        .appendTo(head);
      $('<div class="edge-sidebar-summary" style="font-weight: normal; font-size: 0.85em"></div>')
        .text(summaryOf(account))
        .appendTo(head);
      if (isFolded) return;
      if (account.configError) {
        section.append($("<p></p>").text(_("configError", { code: short(account.configError) })));
        return;
      }
      $("<h4></h4>").text(_("health")).appendTo(section);
      section.append(healthOf(account));
      $("<h4></h4>").text(_("pending")).appendTo(section);
      section.append(pendingOf(account, now));
      $("<h4></h4>").text(_("watches")).appendTo(section);
      section.append(watchesOf(account, now));
      $('<h4 class="edge-sidebar-fleet"></h4>').text(_("jobs")).appendTo(section);
      section.append(jobsOf(account));
    });
  }

  function received(snapshot) {
    snapshot.receivedAt = Date.now();
    render(snapshot);
  }

  /** Tells the runtime the pages shown; with `snapshot`, it answers with their rows now. */
  function subscribe(snapshot) {
    var asked = JSON.stringify(pages);
    if (snapshot) view = null;
    $.ajax({
      url: "edge-account/sidebar/subscribe",
      type: "POST",
      contentType: "application/json",
      data: JSON.stringify({ client: CLIENT, pages: pages, snapshot: snapshot }),
      dataType: "json",
    }).done(function (res) {
      // A page turned again meanwhile: this answer is for the pages before.
      if (asked !== JSON.stringify(pages)) return;
      view = res.view;
      if (res.snapshot) received(res.snapshot);
    });
  }

  function refresh() {
    subscribe(true);
  }

  function init() {
    if (RED.sidebar.containsTab && RED.sidebar.containsTab("edge-devices")) return;
    content = $(
      '<div class="edge-sidebar" style="padding: 6px 10px; overflow-y: auto; height: 100%"></div>',
    );
    RED.sidebar.addTab({
      id: "edge-devices",
      label: _("label"),
      name: _("title"),
      iconClass: "fa fa-microchip",
      content: content,
      enableOnEdit: true,
      onchange: refresh,
    });
    content.on("click", ".edge-sidebar-account-head", function () {
      var id = $(this).attr("data-account");
      folded[id] = $(this).closest(".edge-sidebar-account").attr("data-folded") !== "true";
      if (last) render(last);
    });
    content.on("click", ".edge-sidebar-node", function (e) {
      e.preventDefault();
      RED.view.reveal($(this).attr("data-node"));
    });
    content.on("click", ".edge-sidebar-cancel", function () {
      cancel({ account: $(this).attr("data-account"), wait: $(this).attr("data-wait") });
    });
    content.on("click", ".edge-sidebar-cancel-all", function () {
      cancel({ account: $(this).attr("data-account"), device: $(this).attr("data-device") });
    });
    content.on("click", ".edge-sidebar-cancel-job", function () {
      cancel({ account: $(this).attr("data-account"), job: $(this).attr("data-job") });
    });
    content.on("click", ".edge-sidebar-turn", function () {
      var accountId = $(this).attr("data-account");
      var offset = Number($(this).attr("data-offset"));
      if (offset > 0) pages[accountId] = offset;
      else delete pages[accountId];
      subscribe(true);
    });
    RED.comms.subscribe(TOPIC, function (_topic, snapshot) {
      // Another editor's pages are published too: only this one's are shown.
      if (visible() && view !== null && snapshot.view === view) received(snapshot);
    });
    // Heartbeats only while the tab is shown: the runtime stops publishing soon after.
    setInterval(function () {
      if (!visible()) return;
      // Shown without a click (the tab was open when the editor loaded): the first snapshot.
      subscribe(!last);
    }, BEAT_MS);
    setInterval(function () {
      if (visible() && last) render(last);
    }, 1000);
  }

  window.EdgeSidebar = { refresh: refresh };
  init();
})();
