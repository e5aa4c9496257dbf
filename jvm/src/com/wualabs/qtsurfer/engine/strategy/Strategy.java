package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.strategy.execution.ExecutionMode;

import java.util.Optional;
import java.util.Set;

/** The contract every strategy base class implements. */
public interface Strategy {

    boolean acceptInstrument(Instrument instrument);

    ExecutionMode getExecutionMode(Instrument instrument);

    Optional<StateStore> getStateStore(Instrument instrument);

    Set<Instrument> getInstruments();

    Optional<RTIndicator> getRTIndicator(Instrument instrument, String name);
}
