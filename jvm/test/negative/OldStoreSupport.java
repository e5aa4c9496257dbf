// expect: StateStoreSupport
import com.wualabs.qtsurfer.engine.core.state.StateStoreSupport;

public class OldStoreSupport {
}
