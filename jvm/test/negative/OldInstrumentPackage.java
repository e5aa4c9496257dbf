// expect: com.wualabs.qtsurfer.engine.core.Instrument
import com.wualabs.qtsurfer.engine.core.Instrument;

public class OldInstrumentPackage {
}
