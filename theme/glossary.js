// Links the first use of each of the book's own terms on a page to its
// definition on the glossary page (src/glossary.md), once per page. The
// terms and their anchors are listed once, here; the browser check holds
// every anchor to an id on the glossary page.
(function () {
  "use strict";
  var TERMS = [
    ["fair-experiment", /\bfair experiments?\b/i],
    ["as-published", /\bas published\b/i],
    ["verdict-map", /\bverdict maps?\b/i],
    ["ladder", /\bladders?\b/i],
    ["rig", /\brig\b/i],
    ["minimum-effect", /\bminimum effect\b|\bMIN_EFFECT\b/],
    ["interval", /\bintervals?\b/i],
    ["closest-call", /\bclosest calls?\b/i],
    ["profile", /\bprofiles?\b/i],
    ["replicate", /\breplicates?\b/i],
    ["gate", /\bgates?\b/i],
    ["committed-lock", /\bcommitted lock\b/i],
    ["stale", /\bstale\b/i],
  ];
  window.BOOK_GLOSSARY_TERMS = TERMS.map(function (t) { return t[0]; });
  var main = document.querySelector("#content main");
  if (!main) return;
  var here = location.pathname.split("/").pop() || "index.html";
  if (here === "glossary.html") return;
  var root = (typeof path_to_root === "string") ? path_to_root : "";
  var SKIP = /^(A|CODE|PRE|SCRIPT|STYLE|H1|H2|H3|H4|H5|H6|SUMMARY|BUTTON|svg|text|title)$/;
  function skipped(node) {
    for (var el = node.parentNode; el && el !== main; el = el.parentNode) {
      if (SKIP.test(el.nodeName)) return true;
      if (el.classList && (el.classList.contains("verdict") || el.classList.contains("answer-first"))) return true;
    }
    return false;
  }
  var todo = TERMS.slice();
  var walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT, null);
  var node;
  var nodes = [];
  while ((node = walker.nextNode())) nodes.push(node);
  for (var i = 0; i < nodes.length && todo.length; i++) {
    node = nodes[i];
    if (skipped(node)) continue;
    for (var k = 0; k < todo.length; k++) {
      var m = todo[k][1].exec(node.nodeValue);
      if (!m) continue;
      var after = node.splitText(m.index);
      var rest = after.splitText(m[0].length);
      var a = document.createElement("a");
      a.href = root + "glossary.html#" + todo[k][0];
      a.className = "glossary-term";
      a.title = "defined in the glossary";
      a.textContent = after.nodeValue;
      after.parentNode.replaceChild(a, after);
      todo.splice(k, 1);
      // The rest of this text node may hold another term.
      nodes.splice(i + 1, 0, rest);
      break;
    }
  }
})();
