/* The judging page: reasoning before scoring, keyboard, autosave with an offline mirror, time on task,
 * the pinned context column (the response under test always in view), and the cursor (the criterion
 * the expert is on, saved with the draft so a reload returns there).
 *
 * Nothing typed is lost: a save counts only when the server confirms it (the HB-Draft-Version header of
 * a 200); anything else (signed out, changed in another tab, offline, a page that is not the answer)
 * leaves the browser's copy in place and says why. Every save is based on the draft version the page
 * holds; a copy based on an older version (another tab saved since) is never sent unseen but offered.
 *
 * Everything degrades: without JavaScript the form still posts to "Save draft" and "Submit", and
 * the server re-validates every rule enforced here.
 */
(function () {
  "use strict";

  var form = document.getElementById("judging-form");
  if (!form) return;

  var pid = form.dataset.assignment;
  var minChars = Math.max(1, parseInt(form.dataset.minChars || "1", 10) || 1);
  var submitted = form.dataset.submitted === "1";
  // Lapsed work (the reservation expired or was released) is read-only until taken back; what this
  // browser kept of it stays kept, so a take-back restores it.
  var lapsed = form.dataset.lapsed === "1";
  var storeKey = "hb-draft:" + pid;
  // Text the server refused because the draft had changed in another tab: offered back on the next load.
  var heldKey = "hb-draft-held:" + pid;
  var versionField = form.querySelector(".ws-version");
  var cards = Array.prototype.slice.call(form.querySelectorAll(".criterion-card"));
  var help = document.getElementById("kbd-help");
  var cursorField = form.querySelector(".ws-cursor");
  var current = 0;

  // --- the context column: pinned, filling the window below its top --------------------------------
  var context = document.getElementById("ws-context");
  var fitQueued = false;
  function fitContext() {
    fitQueued = false;
    if (!context || window.getComputedStyle(context).position !== "sticky") return;
    var top = Math.max(context.getBoundingClientRect().top, 8);
    context.style.setProperty("--ws-context-h", Math.max(288, window.innerHeight - top - 8) + "px");
  }
  function queueFit() {
    if (!fitQueued) { fitQueued = true; window.requestAnimationFrame(fitContext); }
  }
  if (context) {
    fitContext();
    window.addEventListener("scroll", queueFit, { passive: true });
    window.addEventListener("resize", queueFit);
    // The latest turn, the one the response answers, is what the expert reads first.
    var scroller = context.querySelector(".ws-dialogue-scroll");
    if (scroller) scroller.scrollTop = scroller.scrollHeight;
  }

  // --- storage (may be unavailable: private mode, quota) ---------------------------------------
  function readStore() {
    try { return JSON.parse(window.localStorage.getItem(storeKey) || "null"); } catch (e) { return null; }
  }
  function writeStore(value) {
    try { window.localStorage.setItem(storeKey, JSON.stringify(value)); } catch (e) { /* the server copy remains */ }
  }
  function dropStore() {
    try { window.localStorage.removeItem(storeKey); } catch (e) { /* nothing to drop */ }
  }
  function readHeld() {
    try { return JSON.parse(window.localStorage.getItem(heldKey) || "null"); } catch (e) { return null; }
  }
  function writeHeld(value) {
    try { window.localStorage.setItem(heldKey, JSON.stringify(value)); } catch (e) { /* the tab still shows it */ }
  }
  function dropHeld() {
    try { window.localStorage.removeItem(heldKey); } catch (e) { /* nothing to drop */ }
  }
  // The draft version this page's text is based on (the server's, then each confirmed save's).
  function draftVersion() {
    return versionField ? parseInt(versionField.value || "0", 10) || 0 : 0;
  }

  // --- a page the browser restored (Back, Forward) asks the server whether it is still current -------
  // The pages are sent with Cache-Control: no-store, so Back normally loads them anew; a browser may still
  // restore one from its back/forward cache as it was. It then asks (a HEAD of the same address) for the
  // response's state and draft version, and reloads when either moved on (submitted meanwhile, saved in
  // another tab or by a save whose answer this page never got): the reload shows the read-only view, or
  // the current draft with this browser's copy reconciled (below).
  var workState = submitted ? "submitted" : lapsed ? "lapsed" : "editable";
  var leaving = false;
  var posting = false;  // the judging form itself is being posted: it carries the text, no draft save races it
  window.addEventListener("pageshow", function (e) {
    leaving = false;
    posting = false;
    if (!e.persisted || !window.fetch) return;
    fetch(window.location.href, { method: "HEAD", cache: "no-store", credentials: "same-origin" })
      .then(function (r) {
        var state = r.headers.get("HB-Work-State");
        if (!r.ok || !state) return;  // signed out or unreachable: this page and its local copy stay as they are
        var version = r.headers.get("HB-Page-Draft-Version");
        if (state !== workState || (state === "editable" && version !== String(draftVersion()))) window.location.reload();
      })
      .catch(function () { /* offline: the page stays, its copy is kept in this browser */ });
  });

  // --- help overlay and moving between criteria --------------------------------------------------
  function toggleHelp() {
    if (!help) return;
    if (help.open) help.close(); else help.showModal();
  }
  var helpButton = document.querySelector(".ws-help-button");
  if (helpButton) helpButton.addEventListener("click", toggleHelp);

  // --- the library: a side panel on the criterion in focus, loaded only when opened ---------------
  var drawer = document.getElementById("ws-library");
  var libraryButton = document.querySelector(".ws-library-button");
  var libraryShown = null;  // the criterion the panel shows
  var libraryTimer = null;
  var focusSearch = false;
  function libraryOpen() { return drawer && !drawer.hidden; }
  function loadLibrary(force) {
    if (!libraryOpen() || !window.htmx || !cards.length) return;
    var criterion = cards[current].dataset.criterion;
    if (!force && criterion === libraryShown) return;
    libraryShown = criterion;
    window.htmx.ajax("GET", drawer.dataset.url + "?criterion=" + encodeURIComponent(criterion), { target: "#library-panel", swap: "innerHTML" });
  }
  function toggleLibrary(show) {
    if (!drawer) return;
    var open = show === undefined ? drawer.hidden : show;
    drawer.hidden = !open;
    if (libraryButton) libraryButton.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) {
      focusSearch = true;
      loadLibrary(false);
      var box = drawer.querySelector("input[type=search]");
      (box || drawer).focus({ preventScroll: true });
    } else if (cards.length) {
      cards[current].focus({ preventScroll: true });
    }
  }
  if (drawer) {
    drawer.tabIndex = -1;
    if (libraryButton) libraryButton.addEventListener("click", function (e) { e.preventDefault(); toggleLibrary(); });
    var closer = drawer.querySelector(".ws-library-close");
    if (closer) closer.addEventListener("click", function () { toggleLibrary(false); });
    drawer.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); toggleLibrary(false); }
    });
    document.body.addEventListener("htmx:afterSwap", function (e) {
      // Once loaded after being opened, the panel's search box takes the focus; a reload for another criterion leaves it where it is.
      if (focusSearch && e.detail.target && e.detail.target.id === "library-panel" && libraryOpen()) {
        focusSearch = false;
        var box = drawer.querySelector("input[type=search]");
        if (box) box.focus({ preventScroll: true });
      }
    });
  }

  function setCurrent(index, focus) {
    if (!cards.length) return;
    current = Math.max(0, Math.min(cards.length - 1, index));
    cards.forEach(function (card, i) { card.classList.toggle("current", i === current); });
    if (cursorField) cursorField.value = String(current + 1);
    if (libraryOpen()) { clearTimeout(libraryTimer); libraryTimer = setTimeout(function () { loadLibrary(false); }, 250); }
    if (focus) {
      cards[current].focus({ preventScroll: true });
      cards[current].scrollIntoView({ block: "nearest" });
    }
  }
  cards.forEach(function (card, i) {
    card.addEventListener("focusin", function () { setCurrent(i, false); });
  });
  setCurrent((parseInt(form.dataset.cursor || "1", 10) || 1) - 1, false);

  // --- narrow screens: the response (above the criteria) and the criterion the expert is on, one tap apart ---
  // Scrolled to without changing the address (a plain link's #fragment would bring a reload back there).
  function jumpTo(el) { if (el) el.scrollIntoView({ block: "start", behavior: "auto" }); }
  var jumpResponse = form.querySelector(".ws-jump-response");
  if (jumpResponse) jumpResponse.addEventListener("click", function (e) {
    e.preventDefault();
    jumpTo(document.getElementById("response-under-test"));
  });
  var backToCriterion = document.querySelector(".ws-back-to-criterion");
  if (backToCriterion) backToCriterion.addEventListener("click", function (e) {
    e.preventDefault();
    jumpTo(cards[current] || document.getElementById("rubric-h"));
  });

  function rationaleOf(card) { return card.querySelector("textarea.rationale"); }
  function radiosOf(card) { return card.querySelectorAll("input[type=radio]"); }
  function verdictOf(card) {
    var checked = card.querySelector("input[type=radio]:checked");
    return checked ? checked.value : "";
  }

  if (submitted || lapsed) {
    // Submitted work is read-only; whatever this browser kept for it is obsolete. Lapsed work keeps it.
    if (submitted) dropStore();
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && libraryOpen()) { e.preventDefault(); toggleLibrary(false); return; }
      if (e.target.matches("textarea, input, select")) return;
      if (drawer && drawer.contains(e.target) && e.key !== "l") return;
      if (e.key === "j" || e.key === "ArrowDown") { setCurrent(current + 1, true); e.preventDefault(); }
      else if (e.key === "k" || e.key === "ArrowUp") { setCurrent(current - 1, true); e.preventDefault(); }
      else if (e.key === "?") { toggleHelp(); e.preventDefault(); }
      else if (e.key === "l" && !e.altKey && !e.ctrlKey && !e.metaKey) { toggleLibrary(); e.preventDefault(); }
    });
    return;
  }

  // --- reasoning before scoring --------------------------------------------------------------------
  function updateGate(card) {
    var ok = rationaleOf(card).value.trim().length >= minChars;
    Array.prototype.forEach.call(radiosOf(card), function (radio) {
      radio.disabled = !ok;
      if (!ok) radio.checked = false;
    });
    var hint = card.querySelector(".verdict-hint");
    if (hint) hint.textContent = ok ? "" : interpolate(gettext("Write at least %(count)s characters of rationale to mark hit or miss."), { count: minChars }, true);
    card.classList.toggle("judged", ok && verdictOf(card) !== "");
  }
  function updateCount() {
    var judged = cards.filter(function (card) { return card.classList.contains("judged"); }).length;
    var counter = document.querySelector(".ws-judged");
    if (counter) counter.textContent = String(judged);
    return judged;
  }

  // --- status indicator ------------------------------------------------------------------------------
  function setStatus(state, text) {
    var el = document.getElementById("save-status");
    if (!el) return;
    el.className = "save-status state-" + state;
    el.textContent = text;
  }
  function setSignedOut() {
    // The session ended: the copy stays in this browser; signing in returns here, which restores and saves it.
    setStatus("signed-out", gettext("Signed out — sign in to continue; nothing is lost.") + " ");
    var el = document.getElementById("save-status");
    if (!el || !form.dataset.loginUrl) return;
    var link = document.createElement("a");
    link.href = form.dataset.loginUrl;
    link.textContent = gettext("Sign in");
    el.appendChild(link);
  }
  // Whether a request was sent on to the sign-in page (a server that redirects scripts there).
  function isLoginUrl(url) {
    var login = (form.dataset.loginUrl || "").split("?")[0];
    try { return !!login && new URL(url, window.location.href).pathname === login; } catch (e) { return false; }
  }
  // The draft version of a confirmed save, or null: a redirect to the login page, an error page or a
  // refusal is never taken for a save.
  function versionOf(status, header) {
    return status === 200 && header && /^[0-9]+$/.test(header) ? parseInt(header, 10) : null;
  }
  function confirmedVersion(xhr) {
    return xhr ? versionOf(xhr.status, xhr.getResponseHeader("HB-Draft-Version")) : null;
  }

  // --- local mirror and restore --------------------------------------------------------------------
  var edits = 0;
  function entries() {
    var out = {};
    cards.forEach(function (card) {
      out[card.dataset.criterion] = { r: rationaleOf(card).value, h: verdictOf(card) };
    });
    return out;
  }
  // What the save in flight sent (its base version and text), kept with the local copy: when the page is
  // left before the answer comes, the next load recognises the draft it wrote (one version on, exactly its
  // text) as this browser's own, and the later text as based on it.
  var sending = null;
  function mirror(dirty) {
    writeStore({ t: Date.now(), dirty: dirty, v: draftVersion(), entries: entries(), sending: sending });
  }
  function differs(kept) {
    return cards.some(function (card) {
      var e = kept[card.dataset.criterion];
      return !!e && (rationaleOf(card).value !== e.r || verdictOf(card) !== e.h);
    });
  }
  function apply(kept) {
    var changed = false;
    cards.forEach(function (card) {
      var saved = kept[card.dataset.criterion];
      if (!saved) return;
      var box = rationaleOf(card);
      if (box.value !== saved.r) { box.value = saved.r; changed = true; }
      Array.prototype.forEach.call(radiosOf(card), function (radio) {
        var want = radio.value === saved.h;
        if (radio.checked !== want) { radio.checked = want; changed = true; }
      });
    });
    return changed;
  }
  function restore() {
    var stored = readStore();
    if (!stored || !stored.dirty || !stored.entries) {
      dropStore();
      return false;
    }
    // A copy based on the version the server still holds is the newest text: restored and sent. (A copy
    // from before versions compares times.)
    var serverSavedMs = (parseInt(form.dataset.savedAt || "0", 10) || 0) * 1000;
    var current = typeof stored.v === "number" ? stored.v === draftVersion() : stored.t > serverSavedMs;
    // The last save this browser sent landed, but the page was gone before its answer came: the draft is
    // exactly what it sent, one version on, so nothing else was written since and the copy goes on from it.
    var sent = stored.sending;
    var own = !!sent && typeof sent.v === "number" && sent.v + 1 === draftVersion() && !!sent.entries && !differs(sent.entries);
    if (!current && !own) {
      // The draft moved on since (another tab saved): never sent unseen; offered instead.
      if (differs(stored.entries)) writeHeld({ t: stored.t, v: stored.v, entries: stored.entries });
      dropStore();
      return false;
    }
    var changed = apply(stored.entries);
    if (!changed) dropStore();  // the server already holds it
    return changed;
  }

  // --- time on task: seconds with the page visible and someone at it ------------------------------
  var IDLE_MS = 5 * 60 * 1000;
  var unsentSeconds = 0;
  var lastTick = Date.now();
  var lastActivity = Date.now();
  ["keydown", "pointerdown", "pointermove", "scroll", "input"].forEach(function (type) {
    document.addEventListener(type, function () { lastActivity = Date.now(); }, { passive: true, capture: true });
  });
  setInterval(function () {
    var now = Date.now();
    if (document.visibilityState === "visible" && now - lastActivity < IDLE_MS) unsentSeconds += (now - lastTick) / 1000;
    lastTick = now;
  }, 1000);
  var secondsField = form.querySelector(".ws-active-seconds");
  var csrfField = form.querySelector("input[name=csrfmiddlewaretoken]");
  function timeReport() {
    var seconds = Math.floor(unsentSeconds);
    var data = new FormData();
    data.append("csrfmiddlewaretoken", csrfField ? csrfField.value : "");
    data.append("active_seconds", String(seconds));
    return { seconds: seconds, data: data };
  }
  function flushTime(useBeacon) {
    var report = timeReport();
    if (report.seconds < 1) return;
    unsentSeconds -= report.seconds;
    if (useBeacon && navigator.sendBeacon) {
      if (!navigator.sendBeacon(form.dataset.timeUrl, report.data)) unsentSeconds += report.seconds;
      return;
    }
    // Asked as JSON: signed out, the answer is a 401, not the login page (which would count as sent).
    fetch(form.dataset.timeUrl, { method: "POST", body: report.data, credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { if (!r.ok && r.status !== 409) unsentSeconds += report.seconds; })
      .catch(function () { unsentSeconds += report.seconds; });
  }
  setInterval(function () { if (!saving && unsentSeconds >= 30) flushTime(false); }, 30000);

  // --- autosave (htmx) ---------------------------------------------------------------------------------
  var timer = null;
  var saving = false;
  var dirty = false;
  var sentEdits = 0;
  var sentSeconds = 0;
  var basedOn = 0;

  function scheduleSave() {
    edits += 1;
    dirty = true;
    mirror(true);
    setStatus(navigator.onLine ? "saving" : "offline", navigator.onLine ? gettext("Saving…") : gettext("Offline — your changes are kept in this browser"));
    clearTimeout(timer);
    timer = setTimeout(save, 700);
  }
  function startSave(seconds) {
    saving = true;
    sentEdits = edits;
    basedOn = draftVersion();
    sentSeconds = seconds;
    unsentSeconds -= sentSeconds;
    if (secondsField) secondsField.value = String(sentSeconds);
    sending = { v: basedOn, entries: entries() };
    mirror(true);
    setStatus("saving", gettext("Saving…"));
  }
  function save() {
    clearTimeout(timer);
    if (!dirty || leaving || posting) return;
    if (!navigator.onLine) { setStatus("offline", gettext("Offline — your changes are kept in this browser")); return; }
    if (saving) { timer = setTimeout(save, 400); return; }
    startSave(Math.floor(unsentSeconds));
    window.htmx.trigger(form, "hb:autosave");
  }
  // The same save as a fetch that outlives the page (keepalive), for leaving it: answered like an autosave
  // while the page is still there. An autosave already in flight is not doubled (the next load reconciles it).
  function saveNow(keepalive) {
    clearTimeout(timer);
    if (!dirty || saving || posting || !window.fetch || !navigator.onLine) return Promise.resolve();
    startSave(0);
    var data = new FormData(form);
    var request;
    try {
      request = fetch(form.getAttribute("hx-post"), {
        method: "POST", body: data, credentials: "same-origin", keepalive: !!keepalive, headers: { "HX-Request": "true" },
      });
    } catch (err) { request = Promise.reject(err); }
    return request.then(function (r) {
      return r.text().then(function (html) {
        var swap = versionOf(r.status, r.headers.get("HB-Draft-Version")) !== null || ((r.status === 400 || r.status === 409) && /id="save-status"/.test(html));
        var el = document.getElementById("save-status");
        if (swap && el) el.outerHTML = html;
        settle(r.status, function (name) { return r.headers.get(name); }, isLoginUrl(r.url));
      });
    }, function () { settle(0, function () { return null; }, false); });
  }
  form.addEventListener("htmx:afterRequest", function (e) {
    if (e.detail.elt !== form) return;
    var xhr = e.detail.xhr;
    settle(xhr ? xhr.status : 0, function (name) { return xhr ? xhr.getResponseHeader(name) : null; }, !!xhr && isLoginUrl(xhr.responseURL));
  });
  // A save's answer (an autosave's or a fetch's): a save counts only when the server confirms it.
  function settle(status, header, loginPage) {
    saving = false;
    if (secondsField) secondsField.value = "0";
    var version = versionOf(status, header("HB-Draft-Version"));
    if (version !== null) {
      sending = null;
      if (versionField) versionField.value = String(version);
      if (edits === sentEdits) { dirty = false; mirror(false); }
      else {
        // Edits arrived while this save was in flight: the indicator must not claim "saved", and the
        // copy is now based on the new version.
        mirror(true);
        timer = setTimeout(save, 400);
        setTimeout(function () { if (dirty) setStatus("saving", gettext("Saving…")); }, 0);
      }
      return;
    }
    // Not saved: the copy in this browser stays, and the indicator says why. Only an unanswered save (status 0)
    // may still have been written.
    unsentSeconds += sentSeconds;
    if (status !== 0) sending = null;
    mirror(true);
    if (status === 401 || status === 403) setSignedOut();
    else if (status === 409 && header("HB-Draft-Conflict")) {
      // Changed in another tab: the server's message is shown; this text is also kept for the next load.
      writeHeld({ t: Date.now(), v: basedOn, entries: entries() });
    } else if (status === 0) setStatus("offline", gettext("Offline — your changes are kept in this browser"));
    else if (status === 200 && loginPage) setSignedOut();
    else if (status === 200) setStatus("error", gettext("Not saved: the answer was not a saved draft. Your changes are kept in this browser."));
  }
  form.addEventListener("htmx:sendError", function () {
    saving = false;
    mirror(true);
    setStatus("offline", gettext("Offline — your changes are kept in this browser"));
  });
  document.body.addEventListener("htmx:beforeSwap", function (e) {
    var xhr = e.detail.xhr;
    var status = xhr && xhr.status;
    if (e.detail.requestConfig && e.detail.requestConfig.elt === form) {
      // Only the server's own indicator goes into the indicator: a confirmed save, or a refusal saying why
      // (never a login page or any other page a redirect led to). Either way, the afterRequest handler decides what was saved.
      var indicator = (status === 400 || status === 409) && /id="save-status"/.test(xhr.responseText || "");
      e.detail.shouldSwap = confirmedVersion(xhr) !== null || indicator;
      e.detail.isError = !e.detail.shouldSwap;
      return;
    }
    // Validation answers (400/409) carry a message for the user: show it.
    if (status === 400 || status === 409) { e.detail.shouldSwap = true; e.detail.isError = false; }
  });
  document.body.addEventListener("htmx:afterRequest", function (e) {
    var elt = e.detail.elt;
    if (elt && elt !== form && elt.id && elt.id.indexOf("unclear-") === 0 && e.detail.successful) elt.reset();
  });
  window.addEventListener("online", function () { if (dirty) save(); });
  window.addEventListener("offline", function () { setStatus("offline", gettext("Offline — your changes are kept in this browser")); });
  // --- leaving the page: the pending draft is saved first -------------------------------------------
  // Hidden (another tab, the phone's home screen) or gone (closed, Back, a typed address): a save that
  // outlives the page. A link or a form of this page (the language switch, the header's links): the
  // navigation waits, briefly, for the save in flight and for the pending one, so the page it leads to
  // (often this one, in another language) shows the text just typed.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") {
      if (dirty) saveNow(true);
      flushTime(true);
    }
  });
  window.addEventListener("pagehide", function () {
    if (dirty) saveNow(true);
    leaving = true;
    flushTime(true);
  });
  var LEAVE_WAIT_MS = 3000;
  function settled(ms) {
    return new Promise(function (resolve) {
      var end = Date.now() + ms;
      (function check() { if (!saving || Date.now() > end) resolve(); else setTimeout(check, 40); })();
    });
  }
  function savedBeforeLeaving() {
    var end = Date.now() + LEAVE_WAIT_MS;
    return settled(LEAVE_WAIT_MS).then(function () {
      if (saving || !dirty) return null;
      return Promise.race([saveNow(false), settled(Math.max(0, end - Date.now()))]);
    });
  }
  var proceeding = false;
  document.addEventListener("click", function (e) {
    if (proceeding || e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    var link = e.target.closest ? e.target.closest("a[href]") : null;
    if (!link || (link.target && link.target !== "_self") || link.hasAttribute("download")) return;
    var to;
    try { to = new URL(link.href, window.location.href); } catch (err) { return; }
    if (to.hash && to.pathname === window.location.pathname && to.search === window.location.search) return;  // this page
    if (!dirty && !saving) return;
    e.preventDefault();
    savedBeforeLeaving().then(function () { proceeding = true; window.location.assign(link.href); });
  });
  document.addEventListener("submit", function (e) {
    var other = e.target;
    if (proceeding || e.defaultPrevented || other === form || !(dirty || saving)) return;
    if (other.hasAttribute("hx-post") || other.hasAttribute("hx-get") || (other.getAttribute("method") || "").toLowerCase() === "dialog") return;
    e.preventDefault();
    var submitter = e.submitter;
    savedBeforeLeaving().then(function () {
      proceeding = true;
      if (other.requestSubmit) other.requestSubmit(submitter || undefined); else other.submit();
    });
  });

  form.addEventListener("input", function (e) {
    var card = e.target.closest(".criterion-card");
    if (!card) return;
    if (e.target.classList.contains("rationale")) updateGate(card);
    updateCount();
    scheduleSave();
  });
  form.addEventListener("change", function (e) {
    var card = e.target.closest(".criterion-card");
    if (!card || e.target.type !== "radio") return;
    updateGate(card);
    updateCount();
    scheduleSave();
  });

  // --- submitting --------------------------------------------------------------------------------
  function firstIncomplete() {
    for (var i = 0; i < cards.length; i++) if (!cards[i].classList.contains("judged")) return i;
    return -1;
  }
  form.addEventListener("submit", function (e) {
    var submitter = e.submitter;
    if (submitter && submitter.getAttribute("formaction")) { posting = true; return; } // "Save draft" without JavaScript's help
    var missing = firstIncomplete();
    if (missing >= 0) {
      e.preventDefault();
      setStatus("error", interpolate(gettext("Not submitted: criterion %(number)s still needs a rationale and a verdict."), { number: missing + 1 }, true));
      setCurrent(missing, true);
      return;
    }
    clearTimeout(timer);
    if (saving && !proceeding) {
      // An autosave is in flight: submitting now would be based on the version before it (and refused).
      e.preventDefault();
      settled(LEAVE_WAIT_MS).then(function () {
        proceeding = true;
        if (form.requestSubmit) form.requestSubmit(submitter || undefined); else form.submit();
      });
      return;
    }
    posting = true;
    if (secondsField) secondsField.value = String(Math.floor(unsentSeconds));
    unsentSeconds = 0;
  });
  function trySubmit() {
    var button = form.querySelector(".ws-submit");
    if (form.requestSubmit) form.requestSubmit(button || undefined); else if (button) button.click();
  }

  // --- moving on: a verdict takes the expert to the next criterion's rationale -------------------
  function focusRationale(index) {
    setCurrent(index, false);
    var box = rationaleOf(cards[current]);
    box.focus({ preventScroll: true });
    cards[current].scrollIntoView({ block: "nearest" });
  }
  function advance() {
    if (current < cards.length - 1) { focusRationale(current + 1); return; }
    // The last criterion: the next thing to do is submitting (or finishing one left open).
    var missing = firstIncomplete();
    if (missing >= 0) { focusRationale(missing); return; }
    var button = form.querySelector(".ws-submit");
    if (button) { button.focus({ preventScroll: true }); button.scrollIntoView({ block: "nearest" }); }
  }
  // A verdict chosen with the pointer moves on too; one changed with the arrow keys (within the group) does not.
  var pointerVerdict = false;
  form.addEventListener("pointerdown", function (e) { pointerVerdict = !!e.target.closest(".verdict label"); }, true);
  form.addEventListener("change", function (e) {
    if (e.target.type !== "radio" || !pointerVerdict) return;
    pointerVerdict = false;
    var card = e.target.closest(".criterion-card");
    if (card) { setCurrent(cards.indexOf(card), false); advance(); }
  });

  // --- keyboard ------------------------------------------------------------------------------------
  function mark(hit) {
    var card = cards[current];
    if (!card) return;
    var radio = card.querySelector("input[type=radio][value=" + (hit ? "hit" : "miss") + "]");
    if (!radio || radio.disabled) {
      var hint = card.querySelector(".verdict-hint");
      if (hint) hint.textContent = interpolate(gettext("Write the rationale first (at least %(count)s characters)."), { count: minChars }, true);
      rationaleOf(card).focus();
      return;
    }
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));
    advance();
  }
  document.addEventListener("keydown", function (e) {
    if (help && help.open) return;
    if (e.key === "Escape" && libraryOpen() && !e.target.classList.contains("rationale")) { e.preventDefault(); toggleLibrary(false); return; }
    if ((e.ctrlKey || e.metaKey) && e.key === "Enter") { e.preventDefault(); trySubmit(); return; }
    var target = e.target;
    if (target.matches("textarea, input[type=text], input[type=search], select, [contenteditable]")) {
      // Typing is never interrupted: only deliberate Alt chords act in the rationale box (and never
      // while an input method is composing, as it does for Chinese).
      if (target.classList.contains("rationale") && e.altKey && !e.ctrlKey && !e.metaKey && !e.isComposing) {
        var card = target.closest(".criterion-card");
        if (card) setCurrent(cards.indexOf(card), false);
        if (e.code === "KeyH") { e.preventDefault(); mark(true); return; }
        if (e.code === "KeyM") { e.preventDefault(); mark(false); return; }
        if (e.key === "ArrowDown") { e.preventDefault(); focusRationale(current + 1); return; }
        if (e.key === "ArrowUp") { e.preventDefault(); focusRationale(current - 1); return; }
      }
      if (e.key === "Escape" && target.classList.contains("rationale")) {
        e.preventDefault();
        var own = target.closest(".criterion-card");
        if (own) own.focus();
      }
      return;
    }
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    // In the library's panel, the keys act on the panel (its links, its buttons), not on the criteria; `l` closes it.
    if (drawer && drawer.contains(target)) {
      if (e.key === "l") { e.preventDefault(); toggleLibrary(false); }
      return;
    }
    var onRadio = target.matches("input[type=radio]");
    switch (e.key) {
      case "j": setCurrent(current + 1, true); break;
      case "k": setCurrent(current - 1, true); break;
      case "ArrowDown": if (onRadio) return; setCurrent(current + 1, true); break;
      case "ArrowUp": if (onRadio) return; setCurrent(current - 1, true); break;
      case "r": rationaleOf(cards[current]).focus(); break;
      case "h": mark(true); break;
      case "m": mark(false); break;
      case "?": toggleHelp(); break;
      case "l": toggleLibrary(); break;
      default: return;
    }
    e.preventDefault();
  });

  // --- text another tab's save kept from the server: offered back, never applied unseen ---------------
  var heldPanel = document.getElementById("ws-held");
  function offerHeld() {
    var held = readHeld();
    if (!heldPanel || !held || !held.entries || !differs(held.entries)) { dropHeld(); return; }
    heldPanel.hidden = false;
    heldPanel.querySelector(".ws-held-restore").addEventListener("click", function () {
      var kept = readHeld();
      heldPanel.hidden = true;
      if (!kept || !kept.entries) return;
      apply(kept.entries);
      cards.forEach(updateGate);
      updateCount();
      dropHeld();
      scheduleSave();  // based on the version this page shows: a deliberate choice, so it is saved over the other
    });
    heldPanel.querySelector(".ws-held-discard").addEventListener("click", function () {
      dropHeld();
      heldPanel.hidden = true;
    });
  }

  // --- start ---------------------------------------------------------------------------------------
  var restored = restore();
  offerHeld();
  cards.forEach(updateGate);
  updateCount();
  // Back where the expert was: the cursor's rationale, ready for typing.
  if (cards.length) focusRationale(current);
  if (restored) {
    scheduleSave();
    setStatus("saving", gettext("Restored unsaved changes from this browser — saving…"));
  }
})();
