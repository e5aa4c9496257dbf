"""The portfolio settings the property tests of the kernel draw from: every fee leg, lock and
execution mode, with and without take-profit and multi-entry."""

from __future__ import annotations

from hypothesis import strategies as st

from backtestd.engine.fills import FeeLeg
from backtestd.engine.portfolio import ExecutionMode, PortfolioConfig

portfolio_configs = st.builds(
    PortfolioConfig,
    initial_funding=st.sampled_from([100.0, 7.5]),
    buy_fee_rate=st.sampled_from([0.0, 0.001, 0.1]),
    sell_fee_rate=st.sampled_from([0.0, 0.002, 0.1]),
    fee_leg=st.sampled_from(list(FeeLeg)),
    percent_amount_to_lock=st.sampled_from([None, 30.0, 100.0]),
    mode=st.sampled_from(list(ExecutionMode)),
    percent_gain=st.sampled_from([None, 1.0, 10.0]),
    multi_entry=st.booleans(),
)
