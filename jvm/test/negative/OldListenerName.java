// expect: AbstractOnChangeListener
import com.wualabs.qtsurfer.engine.strategy.AbstractOnChangeListener;

public class OldListenerName {
}
