"""The report's Jinja2 template (kept in Python so it ships with the package without package data).

Autoescaping is on: every user string (keys, column and file names, settings) placed in
the page is HTML-escaped by Jinja2; the tables come ready-made (and escaped) from
:mod:`toolkit.viz._format`, the explorer's formatting, and are inserted with ``| safe``. Chart specs go in ``<script type="application/json">``
blocks whose JSON has ``<``, ``>`` and ``&`` written as ``\\u003c`` ... so no string can
close the block; Vega draws data values as text, never as markup.
"""

TEMPLATE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Watermark Lab {{ version }}">
<title>{{ title }}</title>
<style>
  body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0 auto;
         max-width: 1180px; padding: 1.2em 2em 4em; color: #222; line-height: 1.45; }
  h1 { font-size: 1.6em; margin-bottom: 0.2em; }
  h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
  .sub { color: #666; margin-top: 0; }
  table { border-collapse: collapse; font-size: 0.88em; margin: 0.6em 0; }
  th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
  th { background: #f4f4f4; }
  td.num { text-align: right; font-variant-numeric: tabular-nums; }
  .rec { background: #fff4f0; border-left: 4px solid #e45756; padding: 0.6em 1em; margin: 1em 0; }
  .chart { margin: 1em 0 1.5em; overflow-x: auto; }
  .note { color: #8a5a00; font-size: 0.9em; }
  .setting { color: #444; font-size: 0.9em; margin: 0.3em 0; }
  pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
  table.describe th { white-space: nowrap; vertical-align: top; }
  table.describe td { white-space: normal; overflow-wrap: anywhere; }
  #report-errors { color: #b00020; }
  /* the sweep's table fits the page: headers wrap between words (a value never does), sticky on scroll */
  table.sortable { font-size: 0.8em; }
  table.sortable th { cursor: pointer; user-select: none; white-space: normal; vertical-align: bottom;
                      position: sticky; top: 0; padding: 0.25em 0.35em; }
  table.sortable td { white-space: nowrap; padding: 0.2em 0.35em; }
  table.sortable td:not(.num) { white-space: normal; min-width: 8em; }
  table.sortable th.asc::after { content: " \25B2"; } table.sortable th.desc::after { content: " \25BC"; }
  tr.recommended td { background: #ffe3dc; font-weight: bold; }
  .deploy pre { background: #fbfbfb; border: 1px solid #e4e4e4; }
  .criterion { color: #666; font-size: 0.85em; }
  .scroll { max-height: 28em; overflow: auto; }
</style>
<script>
{{ vega_bundle }}
</script>
</head>
<body data-charts="pending">
<h1>{{ title }}</h1>
<p class="sub">Log <code>{{ log_source }}</code> &middot; {{ generated }} &middot; Watermark Lab {{ version }}
 &middot; works offline: the Vega libraries are inside this file.</p>
<div id="report-errors"></div>

<h2 id="summary">Summary</h2>
{{ log_table | safe }}
{% if describe_html %}<details open class="describe"><summary>What the log looks like</summary>{{ describe_html | safe }}</details>{% endif %}

{% if replay_table %}<h3>Replay of one setting</h3>
<p class="setting">Setting: {% if replay_words %}{{ replay_words }} (<code>{{ replay_settings }}</code>){% else %}{{ replay_settings }}{% endif %}</p>
{{ replay_table | safe }}
{% if replay_latency %}<p class="latency-tail">{{ replay_latency }}{% if replay_latency_anchor %} <a href="#{{ replay_latency_anchor }}">Go to the chart.</a>{% endif %}</p>{% endif %}{% endif %}

{% if recommendation %}
<h2 id="recommendation">Recommendation</h2>
<div class="rec">
<p><strong>{{ recommendation.headline }}</strong></p>
<p>{{ recommendation.reason }}</p>
{{ recommendation.table | safe }}
{% if recommendation.criterion %}<p class="criterion">Rule: {{ recommendation.criterion }}</p>{% endif %}
{% for d in recommendation.deploy %}
<details class="deploy"{% if loop.first %} open{% endif %}><summary>Deploy it: {{ d.engine }}</summary><pre>{{ d.code }}</pre></details>
{% endfor %}
</div>
{% endif %}

{% for section in sections %}
<h2 id="{{ section.anchor }}">{{ section.title }}</h2>
{% if section.get("text") %}<p>{{ section.text }}</p>{% endif %}
{% if section.get("causes") %}<ul class="causes">{% for cause in section.get("causes") %}<li>{{ cause }}</li>{% endfor %}</ul>{% endif %}
{% for chart in section.charts %}
<div class="chart" id="chart-{{ chart.id }}" data-chart="{{ chart.id }}"></div>
<script type="application/json" id="spec-{{ chart.id }}">{{ chart.spec_json | safe }}</script>
{% endfor %}
{% if section.get("recommendations") %}
<h3>The recommendation for each engine</h3>
{% for r in section.recommendations %}
<div class="rec engine-rec">
<p><strong>{{ r.engine }}</strong>{% if r.setting %} &middot; <code>{{ r.setting }}</code>{% endif %}</p>
<p>{{ r.reason }}</p>
{% for d in r.deploy %}
<details class="deploy"{% if loop.first %} open{% endif %}><summary>Deploy it: {{ d.engine }}</summary><pre>{{ d.code }}</pre></details>
{% endfor %}
</div>
{% endfor %}
{% endif %}
{% if section.get("compare_title") %}
<h3 id="kept-dropped">{{ section.compare_title }}</h3>
<p>The same setting translated to each engine (what has no counterpart is noted), then replayed record by record.</p>
<ul class="settings">{% for s in section.settings %}<li><strong>{{ s.engine }}</strong>: <code>{{ s.setting }}</code>{% for n in s.notes %}<br><span class="note">{{ n }}</span>{% endfor %}</li>{% endfor %}</ul>
{{ section.figures_table | safe }}
<p>Records one engine keeps (on time or late but accepted) and another drops:</p>
{{ section.kept_table | safe }}
{% if section.examples %}<ul class="causes">{% for e in section.examples %}<li>{{ e }}</li>{% endfor %}</ul>{% endif %}
{% for chart in section.compare_charts %}
<div class="chart" id="chart-{{ chart.id }}" data-chart="{{ chart.id }}"></div>
<script type="application/json" id="spec-{{ chart.id }}">{{ chart.spec_json | safe }}</script>
{% endfor %}
{% endif %}
{% if section.get("after") %}<p class="note">{{ section.after }}</p>{% endif %}
{% endfor %}

{% if sweep_table %}
<h2 id="sweep-table">All configurations of the sweep</h2>
<p>Click a column's name to sort by it; the recommended setting is highlighted.</p>
<div class="scroll">{{ sweep_table | safe }}</div>
{% endif %}

{% if quarantine %}
<h2 id="quarantine">Quarantined rows ({{ quarantine.total }})</h2>
{{ quarantine.table | safe }}
{% if quarantine.more %}<p class="note">{{ quarantine.more }} more not listed.</p>{% endif %}
{% endif %}

<script>
(function () {  // sortable tables: a click on a header sorts by that column (numbers as numbers)
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th[data-col]").forEach(function (th) {
      th.addEventListener("click", function () {
        var col = +th.getAttribute("data-col"), asc = !th.classList.contains("asc");
        table.querySelectorAll("th").forEach(function (h) { h.classList.remove("asc", "desc"); });
        th.classList.add(asc ? "asc" : "desc");
        var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col].getAttribute("data-v"), y = b.cells[col].getAttribute("data-v");
          var nx = parseFloat(x), ny = parseFloat(y);
          var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : String(x).localeCompare(String(y));
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
})();
</script>
<script>
(function () {
  var errors = [];
  var box = document.getElementById("report-errors");
  function report(msg) {
    errors.push(msg);
    var p = document.createElement("p");
    p.textContent = "Chart error: " + msg;
    box.appendChild(p);
  }
  window.addEventListener("error", function (e) { report(String(e.message)); document.body.dataset.charts = "error"; });
  var nodes = document.querySelectorAll("div.chart[data-chart]");
  var jobs = [];
  nodes.forEach(function (node) {
    var id = node.getAttribute("data-chart");
    try {
      var spec = JSON.parse(document.getElementById("spec-" + id).textContent);
      jobs.push(vegaEmbed(node, spec, { renderer: "svg", actions: false })
        .then(function () { node.dataset.rendered = "yes"; })
        .catch(function (err) { report(id + ": " + err); }));
    } catch (err) { report(id + ": " + err); }
  });
  Promise.all(jobs).then(function () {
    document.body.dataset.charts = errors.length ? "error" : "ok";
    document.body.dataset.chartCount = String(document.querySelectorAll("div.chart[data-rendered=yes]").length);
  });
})();
</script>
</body>
</html>
"""
