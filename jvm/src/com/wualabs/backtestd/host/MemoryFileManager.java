package com.wualabs.backtestd.host;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;

/**
 * Keeps compiler input and output in memory: no temporary files, nothing left behind.
 *
 * <p>The shared {@link StandardJavaFileManager} (with its cached platform and class-path indexes)
 * is reused across compilations, which is most of what makes a warm compile fast; each compilation
 * wraps it in a fresh instance of this class to collect its own class files.
 */
final class MemoryFileManager extends ForwardingJavaFileManager<StandardJavaFileManager> {
    private final Map<String, ByteArrayOutputStream> outputs = new LinkedHashMap<>();

    MemoryFileManager(StandardJavaFileManager delegate) {
        super(delegate);
    }

    @Override
    public JavaFileObject getJavaFileForOutput(Location location, String className,
            JavaFileObject.Kind kind, FileObject sibling) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        outputs.put(className, buffer);
        return new SimpleJavaFileObject(URI.create("mem:///" + className.replace('.', '/')
                + kind.extension), kind) {
            @Override
            public OutputStream openOutputStream() {
                return buffer;
            }
        };
    }

    /** Class files produced so far, by binary name, in the order javac wrote them. */
    Map<String, byte[]> classFiles() {
        Map<String, byte[]> out = new LinkedHashMap<>();
        outputs.forEach((name, buffer) -> out.put(name, buffer.toByteArray()));
        return out;
    }

    /**
     * The user's source. Its name can change after parsing: the file is named after the public
     * class, which is only known once the source is parsed, and javac reads the name again when
     * it writes the SourceFile attribute used in stack traces.
     */
    static final class Source extends SimpleJavaFileObject {
        private final String text;
        private volatile String simpleName;

        Source(String simpleName, String text) {
            super(URI.create("mem:///" + simpleName + ".java"), Kind.SOURCE);
            this.simpleName = simpleName;
            this.text = text;
        }

        void rename(String newSimpleName) {
            simpleName = newSimpleName;
        }

        @Override
        public URI toUri() {
            return URI.create("mem:///" + simpleName + ".java");
        }

        @Override
        public String getName() {
            return simpleName + ".java";
        }

        @Override
        public boolean isNameCompatible(String name, Kind kind) {
            return kind == Kind.SOURCE; // the public-class/file-name rule is checked by the host
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return text;
        }
    }
}
