import com.wualabs.qtsurfer.engine.core.FundingRate;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractFundingRateStrategy;
import com.wualabs.qtsurfer.engine.strategy.InfoStrategySignal;

public class FundingWatch extends AbstractFundingRateStrategy {
    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice();
    }

    @Override
    public void update(FundingRate funding) {
        super.update(funding);
        InfoStrategySignal info = createInfoStrategySignal(funding.instrument());
        info.set("rate", funding.rate());
        emitSignal(info);
    }
}
