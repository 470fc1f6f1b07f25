"""The renderer toolkit enables in notebooks, checked without a browser (fast; not marked browser)."""
from __future__ import annotations

import altair as alt
import pytest

import toolkit
from toolkit.viz import rendering


@pytest.fixture
def renderer_state():
    """Put Altair's active renderer back after the test."""
    name, options = alt.renderers.active, dict(alt.renderers.options)
    yield
    alt.renderers.enable(name, **options)


def test_outside_a_kernel_nothing_changes(renderer_state):
    alt.renderers.enable("default")
    assert not rendering.in_kernel()
    assert rendering.enable_offline_charts() is False
    assert alt.renderers.active == "default"


def test_offline_widget_carries_its_own_vega(renderer_state):
    from altair import JupyterChart

    assert rendering.enable_offline_charts(force=True)
    assert alt.renderers.active == "jupyter" and alt.renderers.options == {"offline": True}
    esm = JupyterChart._esm
    assert len(esm) > 100_000  # Vega, Vega-Lite and vega-embed are in the script itself
    assert "esm.sh" not in esm and 'from "https://' not in esm


def test_a_renderer_the_user_chose_is_kept(renderer_state, monkeypatch):
    alt.renderers.enable("svg")
    monkeypatch.setattr(rendering, "in_kernel", lambda: True)
    assert rendering.enable_offline_charts() is False
    assert alt.renderers.active == "svg"


def test_explorer_reuses_one_widget_per_chart(renderer_state):
    rendering.enable_offline_charts(force=True)
    event = [1000, 1200, 1500, 4000, 4100, 1700, 9000, 4300, 9500, 12000, 3000]  # notebook 05's clicks
    arrival = [1000, 1300, 1600, 4100, 4200, 4300, 9100, 9200, 9600, 12100, 12200]
    clicks = toolkit.EventLog.from_arrays(event, arrival, key="user")
    app = toolkit.explore(clicks, window="session:1s", delay="200ms", interval="100ms", debounce_ms=0)
    assert app.renderer == "altair" and app.error is None
    (entry,) = app.outputs["records"].outputs
    view = entry["data"]["application/vnd.jupyter.widget-view+json"]
    widget = app._charts.widgets["records"]
    spec = widget.spec
    app.controls["lateness"].value = "5s"  # 3 dropped records become 1
    assert app.error is None and app._charts.widgets["records"] is widget
    (entry,) = app.outputs["records"].outputs
    assert entry["data"]["application/vnd.jupyter.widget-view+json"] == view
    assert widget.spec != spec  # the same widget shows the new replay
    assert toolkit.explore(clicks, debounce_ms=0, renderer="svg").renderer == "svg"
