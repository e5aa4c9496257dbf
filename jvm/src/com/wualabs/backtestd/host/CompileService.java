package com.wualabs.backtestd.host;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The {@code compile} request: javac in memory, canonical form, main class, sandbox verification
 * and strategy metadata.
 *
 * <p>The order matters. The canonical form is printed from the parser's tree before attribution
 * (later phases add and rewrite members). The main class and the declaration lines the verifier
 * reports against come from the attributed tree, before code generation lowers it. User classes
 * are loaded (for declared properties) only after the bytecode passed the verifier, and then only
 * in a sandbox loader on a guarded thread, because inspecting a class may run its static
 * initializer.
 */
final class CompileService {
    private static final List<String> OPTIONS_BASE = List.of(
            "-g", "-proc:none", "-implicit:none", "-encoding", "UTF-8");

    private final JavaCompiler compiler;
    private final StandardJavaFileManager standard;
    private final List<String> options;

    CompileService(String classPath) {
        compiler = ToolProvider.getSystemJavaCompiler();
        if (compiler == null) {
            throw new IllegalStateException("no system Java compiler (is this a JRE, not a JDK?)");
        }
        standard = compiler.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        options = new ArrayList<>(OPTIONS_BASE);
        options.add("-classpath");
        options.add(classPath);
    }

    /**
     * Compiles one strategy source; compile errors are a normal (unsuccessful) answer.
     *
     * <p>javac itself runs on a guarded thread under {@code javacLimits}: a small source can make
     * type inference explode (nested generic lambdas), and without a budget one registration
     * held a host for minutes. An overrun is fatal (the javac thread cannot be stopped), so the
     * host answers and exits and only that registration fails.
     */
    Map<String, Object> compile(String source, String expectedClass, Guard.Limits javacLimits,
            Guard.Limits inspectLimits) throws HostException {
        Guard.Outcome<Compiled> outcome;
        try {
            outcome = Guard.call("compilation", () -> javac(source, expectedClass),
                    CompileService::javacFailure, javacLimits);
        } catch (HostException e) {
            if (!e.kind().equals(HostException.LIMIT_EXCEEDED)) {
                throw e;
            }
            throw new HostException(HostException.LIMIT_EXCEEDED, e.getMessage()
                    + " (javac's type inference can explode on deeply nested generic calls or "
                    + "lambdas: split the expression or give the types explicitly)", true)
                    .with("limit", "compile");
        }
        if (outcome.error() != null) {
            throw outcome.error();
        }
        Compiled compiled = outcome.value();
        if (compiled.answer() != null) {
            return compiled.answer();
        }
        Attempt attempt = compiled.attempt();
        Map<String, Object> metadata = StrategyInspector.inspect(compiled.classes(),
                compiled.mainClass(), inspectLimits, attempt);
        if (metadata == null) {
            return attempt.failure(compiled.canonical());
        }
        Map<String, Object> out = attempt.success(compiled.canonical());
        Map<String, Object> encoded = new LinkedHashMap<>();
        compiled.classes().forEach((name, bytes) -> encoded.put(name,
                Base64.getEncoder().encodeToString(bytes)));
        out.put("class_files", encoded);
        out.put("main_class", compiled.mainClass());
        out.putAll(metadata);
        return out;
    }

    /** What javac produced: a finished answer (failed, or blocked by the sandbox), or classes
     * ready for inspection. */
    private record Compiled(Map<String, Object> answer, String canonical, String mainClass,
            Map<String, byte[]> classes, Attempt attempt) {
        static Compiled finished(Map<String, Object> answer) {
            return new Compiled(answer, null, null, null, null);
        }
    }

    /** The report of a Throwable that escaped javac (host code, but fed with user input). */
    private static HostException javacFailure(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof OutOfMemoryError) {
                return new HostException(HostException.OUT_OF_MEMORY, "the compilation ran out "
                        + "of memory (heap limit " + (Runtime.getRuntime().maxMemory() >> 20)
                        + " MiB); simplify the source", true);
            }
            if (t instanceof StackOverflowError) {
                return new HostException(HostException.LIMIT_EXCEEDED, "the source is nested too "
                        + "deeply for the compiler (javac overflowed its stack); flatten the "
                        + "nesting", true).with("limit", "stack");
            }
            if (t instanceof LinkageError || t instanceof VirtualMachineError) {
                return new HostException(HostException.INTERNAL, "the compiler failed: " + t,
                        true);
            }
        }
        return new HostException(HostException.INTERNAL, "the compiler failed on this source: "
                + Failures.clip(String.valueOf(thrown)));
    }

    private Compiled javac(String source, String expectedClass) throws IOException {
        DiagnosticCollector<JavaFileObject> collector = new DiagnosticCollector<>();
        MemoryFileManager files = new MemoryFileManager(standard);
        String initialName = expectedClass == null ? "Strategy"
                : expectedClass.substring(expectedClass.lastIndexOf('.') + 1);
        MemoryFileManager.Source src = new MemoryFileManager.Source(initialName, source);
        JavacTask task = (JavacTask) compiler.getTask(null, files, collector, options, null,
                List.of(src));
        Attempt attempt = new Attempt(collector);

        List<CompilationUnitTree> units = new ArrayList<>();
        task.parse().forEach(units::add);
        if (attempt.failed() || units.size() != 1) {
            return Compiled.finished(attempt.failure(null));
        }
        CompilationUnitTree unit = units.get(0);
        String canonical = CanonicalForm.of(unit);
        List<ClassTree> publicTypes = publicTopLevelTypes(unit);
        if (expectedClass == null && publicTypes.size() == 1) {
            src.rename(publicTypes.get(0).getSimpleName().toString());
        }

        task.analyze();
        if (attempt.failed()) {
            return Compiled.finished(attempt.failure(canonical));
        }
        Trees trees = Trees.instance(task);
        MainClassFinder finder = new MainClassFinder(task, trees, unit);
        String mainClass = finder.find(publicTypes, expectedClass, attempt);
        DeclarationLines lines = new DeclarationLines(task, trees, unit);
        if (mainClass == null) {
            return Compiled.finished(attempt.failure(canonical));
        }

        task.generate();
        if (attempt.failed()) {
            return Compiled.finished(attempt.failure(canonical));
        }
        Map<String, byte[]> classes = files.classFiles();
        List<BytecodeVerifier.Violation> violations = BytecodeVerifier.verify(classes, lines);
        for (BytecodeVerifier.Violation v : violations) {
            attempt.add(v.line(), -1, "sandbox: " + v.message(), "WARNING", "sandbox.forbidden");
        }
        if (!violations.isEmpty()) {
            return Compiled.finished(blocked(attempt, canonical, classes, mainClass));
        }
        return new Compiled(null, canonical, mainClass, classes, attempt);
    }

    /**
     * The answer for a source that compiled but uses what the sandbox forbids. As on the platform
     * that registers: the violations travel as warnings, the class is never
     * loaded here (so no declared properties), and every run refuses it before loading, which
     * is what makes validation fail with the class and the rule.
     */
    private static Map<String, Object> blocked(Attempt attempt, String canonical,
            Map<String, byte[]> classes, String mainClass) {
        Map<String, Object> out = attempt.success(canonical);
        Map<String, Object> encoded = new LinkedHashMap<>();
        classes.forEach((name, bytes) -> encoded.put(name,
                Base64.getEncoder().encodeToString(bytes)));
        out.put("class_files", encoded);
        out.put("main_class", mainClass);
        out.put("declared_properties", List.of());
        out.put("required_sources", List.of());
        out.put("runnable", false);
        return out;
    }

    private static List<ClassTree> publicTopLevelTypes(CompilationUnitTree unit) {
        List<ClassTree> out = new ArrayList<>();
        for (Tree t : unit.getTypeDecls()) {
            if (t instanceof ClassTree c && c.getModifiers().getFlags().contains(Modifier.PUBLIC)) {
                out.add(c);
            }
        }
        return out;
    }

    /** Diagnostics of one compilation: javac's plus the host's own. */
    static final class Attempt {
        private final DiagnosticCollector<JavaFileObject> javac;
        private final List<Map<String, Object>> own = new ArrayList<>();

        Attempt(DiagnosticCollector<JavaFileObject> javac) {
            this.javac = javac;
        }

        void add(long line, long column, String message, String kind, String code) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("line", line > 0 ? line : null);
            d.put("column", column > 0 ? column : null);
            d.put("message", message);
            d.put("kind", kind);
            d.put("code", code);
            own.add(d);
        }

        boolean failed() {
            for (Diagnostic<? extends JavaFileObject> d : javac.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    return true;
                }
            }
            for (Map<String, Object> d : own) {
                if ("ERROR".equals(d.get("kind"))) {
                    return true;
                }
            }
            return false;
        }

        List<Object> diagnostics() {
            List<Object> out = new ArrayList<>();
            for (Diagnostic<? extends JavaFileObject> d : javac.getDiagnostics()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("line", d.getLineNumber() > 0 ? d.getLineNumber() : null);
                m.put("column", d.getColumnNumber() > 0 ? d.getColumnNumber() : null);
                m.put("message", d.getMessage(Locale.ROOT));
                m.put("kind", d.getKind().name());
                m.put("code", d.getCode());
                out.add(m);
            }
            out.addAll(own);
            return out;
        }

        Map<String, Object> failure(String canonical) {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("success", false);
            out.put("diagnostics", diagnostics());
            out.put("canonical_form", canonical);
            return out;
        }

        Map<String, Object> success(String canonical) {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("success", true);
            out.put("diagnostics", diagnostics());
            out.put("canonical_form", canonical);
            return out;
        }
    }

    /** Finds the single public top-level class that extends a strategy base. */
    static final class MainClassFinder {
        private final JavacTask task;
        private final Trees trees;
        private final CompilationUnitTree unit;

        MainClassFinder(JavacTask task, Trees trees, CompilationUnitTree unit) {
            this.task = task;
            this.trees = trees;
            this.unit = unit;
        }

        String find(List<ClassTree> publicTypes, String expectedClass, Attempt attempt) {
            if (publicTypes.isEmpty()) {
                attempt.add(1, -1, "no public top-level class: a strategy is a public class that "
                        + "extends a strategy base class such as AbstractTickerStrategy", "ERROR",
                        "host.no_main_class");
                return null;
            }
            if (publicTypes.size() > 1) {
                ClassTree second = publicTypes.get(1);
                attempt.add(line(second), column(second), "only one public top-level class is "
                        + "allowed; found " + publicTypes.size(), "ERROR", "host.many_public");
                return null;
            }
            ClassTree tree = publicTypes.get(0);
            TypeElement type = (TypeElement) trees.getElement(TreePath.getPath(unit, tree));
            String binary = task.getElements().getBinaryName(type).toString();
            String problem = StrategyShape.problem(type);
            if (problem == null && expectedClass != null && !expectedClass.equals(binary)
                    && !expectedClass.equals(type.getSimpleName().toString())) {
                problem = "expected the strategy class " + expectedClass + " but found " + binary;
            }
            if (problem != null) {
                attempt.add(line(tree), column(tree), problem, "ERROR", "host.main_class");
                return null;
            }
            return binary;
        }

        private long line(Tree tree) {
            SourcePositions positions = trees.getSourcePositions();
            return unit.getLineMap().getLineNumber(positions.getStartPosition(unit, tree));
        }

        private long column(Tree tree) {
            SourcePositions positions = trees.getSourcePositions();
            return unit.getLineMap().getColumnNumber(positions.getStartPosition(unit, tree));
        }
    }
}
