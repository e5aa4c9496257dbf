// expect: annotation
import com.wualabs.qtsurfer.engine.strategy.annotation.StrategyProperty;

public class OldAnnotationPackage {
}
