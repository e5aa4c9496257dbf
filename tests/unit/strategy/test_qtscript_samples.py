"""Whole QTScript programs: the documented examples and one per grammar form.

Each sample must compile to Java. When javac and the engine API classes (``jvm/build/classes``,
built by ``bash jvm/build.sh``) are present, the generated classes are also compiled with javac
against the real API, and a javac error inside a body is checked to map back to the user's line
and column.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.support.services import require_java

from backtestd.strategy.qtscript import GeneratedJava, compile_qtscript, translate_java_diagnostic

ROOT = Path(__file__).resolve().parents[3]
API_CLASSES = ROOT / "jvm" / "build" / "classes"

SAMPLES: dict[str, str] = {
    "rsi_reversion": """\
strategy "RSI reversion"

param rsiLow  = 30  "Oversold"
param rsiHigh = 70  "Overbought"

instruments */usdt

setup:
  rsi(14) window m1 {
    if (actual < rsiLow)  emitBuy(price);
    if (actual > rsiHigh) emitSell(price);
  }
""",
    "ema_cross": """\
strategy "EMA cross"

param fast = 9  "Fast EMA"
param slow = 21 "Slow EMA"

instruments */usdt

setup:
  ema(fast)
  ema(slow)
  window price s5 {
    double f = value("ema" + fast);
    double s = value("ema" + slow);
    if (f > s && !store.is("long")) {
      store.set("long");
      emitBuy(price);
    }
    if (f < s && store.is("long")) {
      store.unset("long");
      emitSell(price);
    }
  }
""",
    "two_windows": """\
strategy "Two windows"

param rsiLow = 30

setup:
  rsi(14) window Oversold
  ema(20)
  window ema20 Trend

window Oversold m1 {
  if (actual < rsiLow && store.inc("oversoldBars") >= 3) {
    emitBuy(price);
  }
}

Trend m5 {
  store.setState("trendUp", actual > prev);
}
""",
    "range_breakout_kline": """\
strategy "Range breakout" kline

param minRange = 0.5 "Minimum range, percent"

setup:
  window close m1 {
    double range = (high - low) / low * 100.0;
    if (range < minRange) return;
    if (close > open) emitBuy(close);
    else              emitSell(close);
  }
""",
    "funding_watch": """\
strategy "Funding watch" funding

instruments ~"^[A-Z]+/USDT:USDT$"

Main m5 {
  emitInfo("funding", rate, "instrument", instrument.symbol());
}
""",
    "configured": """\
strategy "Configured"

param gain = 0.5 "Minimum percent gain"

init {
  setPercentGain(gain);
  setMultiEntryEnabled(true);
}

instruments {
  if (instrument.quote().equalsIgnoreCase("usdt")) {
    return !instrument.base().equals("USDC");
  }
  return false;
}

setup:
  ema(12) window m1 {
    if (actual > prev) emitBuy(price);
  }
""",
    "shortest": """\
strategy Simple

Main m1 {
  if (actual > prev) emitBuy(price);
}
""",
    "every_form": """\
// Every construct in one file.
/* The header may follow comments. */
strategy Everything   // a bare identifier

param period = 20 "SMA period"
param k = 2.5
param useVol = true
param label = "tag\\t\\"x\\""
param neg = -3
param ratio = -0.25

init { setExecutionMode(ExecutionMode.LONG_MULTI); }

instruments btc/usdt, eth/*, ~"^SOL/(USDT|USDC)$", */usdt

setup:
  sma(period) window m3 { if (actual > prev && useVol) emitBuy(price); }
  bollinger(20, 2) window {
    emitInfo("band", $indicator, value($indicator + "Upper"), value($indicator + "Lower"));
  }
  sma("slow", 50) window Shared
  ema(9) window 900 { emitInfo(label, $indicator, actual * ratio + neg); }
  distance("d", "sma" + period, "slow")
  window d Shared
  window "slow" 30 { emitInfo("slow", actual); }
  window price m1 {
  }

Shared m1 {
  emitInfo("shared", $indicator, actual, prev);
}

window Main s10 {
  if (price > 0) emitInfo("main", price, getEngineVersion());
}
""",
    "kline_sections": """\
strategy "Kline sections" kline

param fast = 5

setup:
  ema(fast) window Cross
  window volume Volume

window Cross s30 {
  if (actual > prev && close > open) emitBuy(close);
  else if (actual < prev) emitSell(close);
}

Volume m1 {
  if (volume > value("ema" + fast) * 10) emitInfo("spike", volume, high, low);
}

Main {
  store.add("sum", price);
}
""",
    "funding_setup": """\
strategy Carry funding

param threshold = 0.0001 "Rate threshold"

setup:
  sma("avgRate", 8)
  window avgRate m5 {
    if (actual > threshold) emitInfo("high", rate, actual);
  }
""",
    "body_java_features": """\
strategy "Java features"

param name = "x"

setup:
  window price m1 {
    List<Double> xs = new ArrayList<>(List.of(actual, prev));
    double mean = xs.stream().mapToDouble(Double::doubleValue).average().orElse(0.0);
    Duration width = Duration.between(getPrevInstant(), getCurrInstant());
    var text = String.format("%s %.2f %d", name, mean, width.getSeconds());
    Map<String, Integer> counts = new HashMap<>();
    counts.merge(text, 1, Integer::sum);
    String s = "} { braces in a string";
    char c = '}';  // a } in a comment
    /* { another } */
    if (Math.abs(mean) > 0 && counts.size() > 0 && c == '}' && !s.isEmpty()) {
      store.setState("mean", mean);
    }
    long n = store.inc("fires");
    if (n % 2 == 0) emitSell(price);
  }
""",
    "odd_name": """\
strategy "3 bars: up/down!"

Main m1 {
  emitInfo("engine", getEngineVersion());
}
""",
    "on_command": """\
strategy Commanded

param level = 1

onCommand {
  level = Integer.parseInt($command.trim());
}

Main {
  if (actual > level) emitBuy(price);
}
""",
    "engine_api_in_setup_and_bodies": """\
strategy "Engine API" kline

param hmaPeriod = 9

setup:
  add("hma", new HmaRTIndicator(hmaPeriod)) window m1 {
    CrossDetector.Cross cross = new CrossDetector().check(actual, value("atr"));
    InfoStrategySignal info = createInfoSignal();
    info.set("hma", actual);
    if (cross.above()) emitSignal(info);
  }
  add("atr", new AtrRTIndicator(14))
  add("vol", TickerValueSource.Volume)
  percentChange("price") window s30 {
    emitInfo("chg", $indicator, actual);
  }
  clamp("vol", 0, 1000)
  bollinger(20, 2)
  bollingerBandwidth("blgr20_2") window m1 {
    emitInfo("bandwidth", $indicator, actual, value("blgr20_2Upper"));
  }
""",
}
# The same program written with a BOM, CRLF line ends, tabs and trailing spaces.
SAMPLES["crlf_tabs_bom"] = "\ufeff" + (
    "strategy Tabs  \n\nsetup:\n\tema(3) window m1 {\n\t\temitBuy(price);\t\n\t}\n\tema(4)\n"
).replace("\n", "\r\n")

EXPECTED_CLASS_NAMES = {
    "rsi_reversion": "RSIreversion",
    "ema_cross": "EMAcross",
    "two_windows": "Twowindows",
    "range_breakout_kline": "Rangebreakout",
    "funding_watch": "Fundingwatch",
    "configured": "Configured",
    "shortest": "Simple",
    "every_form": "Everything",
    "kline_sections": "Klinesections",
    "funding_setup": "Carry",
    "body_java_features": "Javafeatures",
    "odd_name": "_3barsupdown",
    "on_command": "Commanded",
    "crlf_tabs_bom": "Tabs",
    "engine_api_in_setup_and_bodies": "EngineAPI",
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sample_compiles_to_one_public_class(name: str) -> None:
    gen = compile_qtscript(SAMPLES[name])
    assert gen.class_name == EXPECTED_CLASS_NAMES[name]
    assert gen.java_source.count(f"public class {gen.class_name} extends ") == 1


def test_sample_class_names_are_distinct() -> None:
    assert len(set(EXPECTED_CLASS_NAMES.values())) == len(SAMPLES)


# -- javac against the real engine API --------------------------------------------------------


def _javac_or_skip() -> str:
    require_java("javac")  # skips, or fails under BACKTESTD_REQUIRE_SERVICES=1
    javac = shutil.which("javac")
    assert javac is not None
    if not (API_CLASSES / "com" / "wualabs" / "qtsurfer" / "engine").is_dir():
        pytest.skip(f"engine API classes not built yet ({API_CLASSES}); run: bash jvm/build.sh")
    return javac


def _javac(javac: str, out: Path, gens: list[GeneratedJava]) -> subprocess.CompletedProcess[str]:
    files = []
    for gen in gens:
        path = out / f"{gen.class_name}.java"
        path.write_text(gen.java_source, encoding="utf-8")
        files.append(str(path))
    command = [
        javac,
        "-XDrawDiagnostics",
        "-encoding",
        "UTF-8",
        "-proc:none",
        "-nowarn",
        "-cp",
        str(API_CLASSES),
        "-d",
        str(out),
        *files,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_generated_java_compiles_against_the_engine_api(tmp_path: Path) -> None:
    javac = _javac_or_skip()
    gens = [compile_qtscript(SAMPLES[name]) for name in sorted(SAMPLES)]
    result = _javac(javac, tmp_path, gens)
    assert result.returncode == 0, result.stderr
    for gen in gens:
        assert (tmp_path / f"{gen.class_name}.class").is_file()


def test_javac_errors_in_bodies_map_to_the_qtscript_position(tmp_path: Path) -> None:
    javac = _javac_or_skip()
    source = (
        'strategy "Broken"\n'  # 1
        "\n"  # 2
        "setup:\n"  # 3
        "  window price m1 {\n"  # 4
        '    int n = "five";\n'  # 5  String -> int at column 13
        "\tdouble d = undefinedName;\n"  # 6  cannot find symbol at column 13
        "  }\n"  # 7
        "  ema(notAParam)\n"  # 8  cannot find symbol at column 7
    )
    gen = compile_qtscript(source)
    result = _javac(javac, tmp_path, [gen])
    assert result.returncode != 0
    found = re.findall(r"^.*?\.java:(\d+):(\d+): (compiler\.err\.[\w.]+)", result.stderr, re.M)
    mapped = sorted(
        translate_java_diagnostic(gen, int(line), int(col), key) for line, col, key in found
    )
    assert mapped == [
        "Line 5, Column 13: compiler.err.prob.found.req",
        "Line 6, Column 13: compiler.err.cant.resolve.location",
        "Line 8, Column 7: compiler.err.cant.resolve.location",
    ]
