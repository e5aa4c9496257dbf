package com.wualabs.backtestd.host;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.util.Map;

/**
 * Whether a strategy's classes can carry state of their own from one run to the next.
 *
 * <p>Each run gets its own class loader so that static state never leaks between parameter vectors
 * ({@link RunService}). That costs the JIT: every loader's copy of the strategy is interpreted, profiled
 * and compiled again (about a third of a vector's CPU over a million bars). Classes that have no static
 * state at all gain nothing from the fresh loader, so a batch may run several vectors through one loader
 * when every class passes this check:
 *
 * <ul>
 *   <li>no static initializer ({@code <clinit>}): nothing runs when the class is initialised, so
 *       initialisation cannot fail for one vector and differ for the next, and no static field can be
 *       given a value other than its {@code ConstantValue};
 *   <li>every static field is {@code final} and of a primitive type or {@code String}, and no method
 *       holds a {@code putstatic} instruction: such a field only ever holds its compile-time constant
 *       ({@code ConstantValue}), an immutable value. (The JVM itself refuses {@code putstatic} to a final
 *       field outside {@code <clinit>} only from class-file version 53 on, and class files may come from
 *       the object store, so the instruction is looked for rather than trusted to fail.)
 * </ul>
 *
 * <p>So such classes hold nothing a run could change; instance state lives in each run's own strategy
 * instance. Enums, static collections, arrays or counters, lazily set statics and static initializer
 * blocks all fail the check and keep one loader per vector.
 */
final class StaticState {
    private static final int PUTSTATIC = 0xb3;

    private StaticState() {}

    /** True when none of {@code classes} (binary name to class-file bytes) can hold static state. */
    static boolean none(Map<String, byte[]> classes) {
        try {
            for (byte[] bytes : classes.values()) {
                if (!stateless(new ClassFileReader(bytes))) {
                    return false;
                }
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false; // unreadable: the run's own checks report it; never share
        }
    }

    private static boolean stateless(ClassFileReader c) throws IOException {
        for (ClassFileReader.Member m : c.methods) {
            if (m.name().equals("<clinit>") || writesStatic(m.code())) {
                return false;
            }
        }
        for (ClassFileReader.Member f : c.fields) {
            if (Modifier.isStatic(f.access())
                    && !(Modifier.isFinal(f.access()) && constantType(f.descriptor()))) {
                return false;
            }
        }
        return true;
    }

    private static boolean writesStatic(byte[] code) throws IOException {
        if (code == null) {
            return false;
        }
        for (int pc = 0; pc < code.length; ) {
            int op = code[pc] & 0xFF;
            if (op == PUTSTATIC) {
                return true;
            }
            pc += Opcodes.length(code, pc, op);
        }
        return false;
    }

    private static boolean constantType(String descriptor) {
        return (descriptor.length() == 1 && "BCDFIJSZ".contains(descriptor))
                || descriptor.equals("Ljava/lang/String;");
    }
}
