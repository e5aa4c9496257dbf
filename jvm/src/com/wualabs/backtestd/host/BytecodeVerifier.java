package com.wualabs.backtestd.host;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks compiled strategy classes against {@link SandboxPolicy} before any of them is loaded.
 *
 * <p>Every symbolic reference a class can make lives in its constant pool, so the verifier judges
 * each CONSTANT_Class, field and method reference (owner, member and descriptor types), method
 * type and handle, and every invokedynamic bootstrap. Walking the bytecode of each method ties a
 * reference to the source line that made it, which turns a violation into a diagnostic a user can
 * act on; references not reached from code (super types, field types, signatures of declared
 * methods, catch types) are still judged, with the declaration's line.
 */
final class BytecodeVerifier {
    /** One refused reference. {@code line} is -1 when unknown. */
    record Violation(String className, int line, String target, String reason) {
        String message() {
            return SandboxPolicy.dotted(className) + " uses " + target + ": " + reason;
        }
    }

    /** Maps (internal class name, member name or null for the class) to a declaration line. */
    interface LineHints {
        int lineOf(String className, String memberName);
    }

    private static final List<String> FORBIDDEN_OWN_PACKAGES = List.of(
            "java/", "javax/", "jdk/", "sun/", "com/sun/", "com/wualabs/");

    private BytecodeVerifier() {}

    /** Verifies a whole compilation (all classes, including nested ones) together. */
    static List<Violation> verify(Map<String, byte[]> classFiles, LineHints hints)
            throws IOException {
        Map<String, ClassFileReader> parsed = new LinkedHashMap<>();
        for (byte[] bytes : classFiles.values()) {
            ClassFileReader cf = new ClassFileReader(bytes);
            parsed.put(cf.thisClass, cf);
        }
        List<Violation> all = new ArrayList<>();
        for (ClassFileReader cf : parsed.values()) {
            all.addAll(new ClassCheck(cf, parsed, hints).run());
        }
        return all;
    }

    /**
     * The library classes whose member {@code name descriptor} a reference through the user
     * class {@code owner} can reach: a user subclass that does not declare the member inherits it
     * from its library super types, so the member is judged against each of them (the class
     * that really declares it is among them). Without this, {@code class L extends ArrayList}
     * would make {@code l.parallelStream()} look like a call on a user class.
     */
    static List<String> inheritedFrom(String owner, String name, String descriptor,
            Map<String, ClassFileReader> own) {
        List<String> library = new ArrayList<>();
        List<String> todo = new ArrayList<>(List.of(owner));
        Set<String> seen = new HashSet<>();
        while (!todo.isEmpty()) {
            String type = todo.remove(todo.size() - 1);
            if (type == null || !seen.add(type)) {
                continue;
            }
            ClassFileReader cf = own.get(type);
            if (cf == null) {
                libraryAncestors(type, library);
                continue;
            }
            boolean declared = false;
            for (ClassFileReader.Member m : cf.methods) {
                if (m.name().equals(name) && m.descriptor().equals(descriptor)) {
                    declared = true;
                    break;
                }
            }
            for (ClassFileReader.Member f : cf.fields) {
                if (f.name().equals(name) && f.descriptor().equals(descriptor)) {
                    declared = true;
                    break;
                }
            }
            if (!declared) {
                todo.add(cf.superClass);
                todo.addAll(cf.interfaces);
            }
        }
        return library;
    }

    /** {@code type} and all its super classes and interfaces (library classes only). */
    private static void libraryAncestors(String type, List<String> out) {
        if (SandboxPolicy.classVerdict(type) != null) {
            out.add(type); // refused on its own anyway; no need to load it
            return;
        }
        try {
            Class<?> cls = Class.forName(SandboxPolicy.dotted(type), false,
                    ClassLoader.getPlatformClassLoader());
            List<Class<?>> todo = new ArrayList<>(List.of(cls));
            while (!todo.isEmpty()) {
                Class<?> c = todo.remove(todo.size() - 1);
                String internal = c.getName().replace('.', '/');
                if (out.contains(internal)) {
                    continue;
                }
                out.add(internal);
                if (c.getSuperclass() != null) {
                    todo.add(c.getSuperclass());
                }
                todo.addAll(List.of(c.getInterfaces()));
            }
        } catch (ClassNotFoundException | LinkageError e) {
            out.add(type);
        }
    }

    /** The checks of one class file. */
    private static final class ClassCheck {
        private final ClassFileReader cf;
        private final Set<String> own;
        private final Map<String, ClassFileReader> ownClasses;
        private final LineHints hints;
        private final Map<Integer, List<String[]>> memo = new HashMap<>();
        private final Set<Integer> exempt = new HashSet<>();
        private final Map<String, Violation> found = new LinkedHashMap<>();

        ClassCheck(ClassFileReader cf, Map<String, ClassFileReader> ownClasses, LineHints hints) {
            this.cf = cf;
            this.own = ownClasses.keySet();
            this.ownClasses = ownClasses;
            this.hints = hints;
        }

        List<Violation> run() throws IOException {
            int classLine = hints.lineOf(cf.thisClass, null);
            for (String pkg : FORBIDDEN_OWN_PACKAGES) {
                if (cf.thisClass.startsWith(pkg)) {
                    add(classLine, SandboxPolicy.dotted(cf.thisClass),
                            "strategies may not declare classes in package "
                                    + SandboxPolicy.dotted(pkg.substring(0, pkg.length() - 1)));
                }
            }
            markBootstrapExemptions();
            // InnerClasses only records nesting (javac lists MethodHandles$Lookup there for any
            // lambda); a class named there is still judged wherever code or a declaration uses it.
            exempt.addAll(cf.innerClassEntries);
            scanCode();
            checkDeclarations();
            for (int i = 1; i < cf.tags.length; i++) {
                if (!exempt.contains(i) && cf.tags[i] != ClassFileReader.NAME_AND_TYPE) {
                    for (String[] v : entry(i)) {
                        add(classLine, v[0], v[1]);
                    }
                }
            }
            return new ArrayList<>(found.values());
        }

        private void add(int line, String target, String reason) {
            found.putIfAbsent(target + "\u0000" + reason,
                    new Violation(cf.thisClass, line, target, reason));
        }

        /** The method refs (and their owners) that serve only as allowed bootstraps. */
        private void markBootstrapExemptions() throws IOException {
            for (int[] bsm : cf.bootstrapMethods) {
                int handle = bsm[0];
                if (cf.tags[handle] != ClassFileReader.METHOD_HANDLE) {
                    continue;
                }
                int ref = cf.ref2[handle];
                if (cf.tags[ref] != ClassFileReader.METHODREF) {
                    continue;
                }
                String owner = cf.className(cf.ref1[ref]);
                String name = cf.utf(cf.ref1[cf.ref2[ref]]);
                if (SandboxPolicy.allowedBootstrap(owner, name)) {
                    exempt.add(handle);
                    exempt.add(ref);
                    exempt.add(cf.ref1[ref]);
                }
            }
        }

        private void checkDeclarations() throws IOException {
            int classLine = hints.lineOf(cf.thisClass, null);
            List<String> supers = new ArrayList<>(cf.interfaces);
            if (cf.superClass != null) {
                supers.add(cf.superClass);
            }
            for (String type : supers) {
                List<String[]> out = new ArrayList<>();
                classRef(type, out);
                for (String[] v : out) {
                    add(classLine, v[0], v[1]);
                }
            }
            for (ClassFileReader.Member f : cf.fields) {
                int line = hints.lineOf(cf.thisClass, f.name());
                for (String[] v : descriptorViolations(f.descriptor())) {
                    add(line, v[0], v[1]);
                }
            }
            for (ClassFileReader.Member m : cf.methods) {
                int line = m.firstLine() > 0 ? m.firstLine() : hints.lineOf(cf.thisClass, m.name());
                for (String[] v : descriptorViolations(m.descriptor())) {
                    add(line, v[0], v[1]);
                }
                if (m.name().equals("finalize") && m.descriptor().equals("()V")) {
                    add(line, "finalize()",
                            "finalizers run on a JVM thread outside the run limits");
                }
                if (m.exceptionCatchTypes() != null) {
                    for (int type : m.exceptionCatchTypes()) {
                        if (type != 0) {
                            for (String[] v : entry(type)) {
                                add(m.firstLine(), v[0], v[1]);
                            }
                        }
                    }
                }
            }
        }

        private void scanCode() throws IOException {
            for (ClassFileReader.Member m : cf.methods) {
                byte[] code = m.code();
                if (code == null) {
                    continue;
                }
                int pc = 0;
                while (pc < code.length) {
                    int op = code[pc] & 0xFF;
                    int index = Opcodes.constantIndex(code, pc);
                    if (index > 0) {
                        if (index >= cf.tags.length) {
                            throw new IOException("constant index out of range");
                        }
                        for (String[] v : entry(index)) {
                            add(m.lineAt(pc), v[0], v[1]);
                        }
                    }
                    pc += Opcodes.length(code, pc, op);
                }
            }
        }

        /** Violations of one constant pool entry as {target, reason} pairs (memoised). */
        private List<String[]> entry(int index) throws IOException {
            List<String[]> cached = memo.get(index);
            if (cached != null) {
                return cached;
            }
            memo.put(index, List.of()); // guards against reference cycles in crafted files
            List<String[]> out = new ArrayList<>();
            switch (cf.tags[index]) {
                case ClassFileReader.CLASS -> classRef(cf.className(index), out);
                case ClassFileReader.FIELDREF, ClassFileReader.METHODREF,
                     ClassFileReader.INTERFACE_METHODREF -> memberRef(index, out);
                case ClassFileReader.METHOD_TYPE -> out.addAll(
                        descriptorViolations(cf.utf(cf.ref1[index])));
                case ClassFileReader.METHOD_HANDLE -> out.addAll(entry(cf.ref2[index]));
                case ClassFileReader.INVOKE_DYNAMIC -> invokeDynamic(index, out);
                case ClassFileReader.DYNAMIC -> out.add(new String[] {
                    "a dynamic constant", "dynamic constants are not allowed in strategies"});
                case ClassFileReader.MODULE, ClassFileReader.PACKAGE -> out.add(new String[] {
                    "a module declaration", "modules are not allowed in strategies"});
                default -> { }
            }
            memo.put(index, out);
            return out;
        }

        private void classRef(String name, List<String[]> out) {
            String element = SandboxPolicy.elementType(name);
            if (element == null || own.contains(element)) {
                return;
            }
            String verdict = SandboxPolicy.classVerdict(element);
            if (verdict != null) {
                out.add(new String[] {SandboxPolicy.dotted(element), verdict});
            }
        }

        private void memberRef(int index, List<String[]> out) throws IOException {
            String owner = cf.className(cf.ref1[index]);
            int nat = cf.ref2[index];
            String name = cf.utf(cf.ref1[nat]);
            String descriptor = cf.utf(cf.ref2[nat]);
            out.addAll(entry(cf.ref1[index]));
            String element = SandboxPolicy.elementType(owner);
            if (element != null && !own.contains(element)) {
                String verdict = SandboxPolicy.memberVerdict(element, name, descriptor);
                if (verdict != null) {
                    out.add(new String[] {SandboxPolicy.dotted(element) + "." + name, verdict});
                }
            } else if (element != null) {
                for (String library : inheritedFrom(element, name, descriptor, ownClasses)) {
                    String verdict = SandboxPolicy.memberVerdict(library, name, descriptor);
                    if (verdict != null) {
                        out.add(new String[] {SandboxPolicy.dotted(element) + "." + name
                                + " (inherited from " + SandboxPolicy.dotted(library) + ")", verdict});
                        break;
                    }
                }
            }
            out.addAll(descriptorViolations(descriptor));
        }

        private void invokeDynamic(int index, List<String[]> out) throws IOException {
            int bsmIndex = cf.ref1[index];
            if (bsmIndex >= cf.bootstrapMethods.size()) {
                throw new IOException("bootstrap method index out of range");
            }
            int[] bsm = cf.bootstrapMethods.get(bsmIndex);
            if (!exempt.contains(bsm[0])) {
                out.add(new String[] {"invokedynamic", "only lambda, string concatenation and "
                        + "record bootstraps are allowed in strategies"});
            }
            for (int k = 1; k < bsm.length; k++) {
                out.addAll(entry(bsm[k]));
            }
            out.addAll(descriptorViolations(cf.utf(cf.ref2[cf.ref2[index]])));
        }

        private List<String[]> descriptorViolations(String descriptor) {
            List<String[]> out = new ArrayList<>();
            int i = 0;
            while (i < descriptor.length()) {
                if (descriptor.charAt(i) == 'L') {
                    int end = descriptor.indexOf(';', i);
                    if (end < 0) {
                        break;
                    }
                    classRef(descriptor.substring(i + 1, end), out);
                    i = end + 1;
                } else {
                    i++;
                }
            }
            return out;
        }
    }
}
