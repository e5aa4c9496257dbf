import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;

public class ReadsFile extends AbstractTickerStrategy {
    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice();
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        try {
            java.nio.file.Files.readAllLines(java.nio.file.Path.of("/etc/passwd"));
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }
}
