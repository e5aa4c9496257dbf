import com.wualabs.qtsurfer.engine.core.Kline;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.CommandRequest;
import com.wualabs.qtsurfer.engine.strategy.CommandRequestHandler;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;

/** Live tests: a signal on every bar (buy up, sell down), tagged with its parameter; takes commands. */
public class EveryBar extends AbstractKlineStrategy implements CommandRequestHandler {
    @StrategyProperty(name = "tag", description = "label on every signal", defaultValue = "a")
    private String tag = "a";

    private int commands;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Kline kline) {
        super.update(kline);
        if (kline.getClose() >= kline.getOpen()) {
            emitBuy(kline.getInstrument(), kline.getClose());
        } else {
            emitSell(kline.getInstrument(), kline.getClose());
        }
        emitInfo("tag", tag);
    }

    @Override
    public void onCommand(CommandRequest request) {
        commands++;
        emitInfo("command", request.getCommand(), "count", commands, "qty", request.get("qty"));
    }
}
