package com.wualabs.backtestd.host;

import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;

/**
 * The class loader of user strategy classes: the second line of the sandbox.
 *
 * <p>The JVM resolves every symbolic reference of a class through that class's defining loader,
 * and {@code Class.forName(name)} called from user code does too. This loader defines the user's
 * own classes from their bytes and hands out only allowlisted names from the host's loader, so
 * even a class file that slipped past the verifier cannot link against a forbidden type. The
 * refusal reads like the platform's ("could not be found"), as the strategy API documents. It
 * has no resources: strategies cannot read files from the class path either.
 */
final class SandboxClassLoader extends ClassLoader {
    static {
        registerAsParallelCapable();
    }

    private final Map<String, byte[]> userClasses;
    private final ClassLoader host;

    /** {@code userClasses} maps binary names (dots) to class-file bytes. */
    SandboxClassLoader(Map<String, byte[]> userClasses, ClassLoader host) {
        super("strategy-sandbox", null);
        this.userClasses = userClasses;
        this.host = host;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                byte[] bytes = userClasses.get(name);
                if (bytes != null) {
                    c = defineClass(name, bytes, 0, bytes.length);
                } else if (allowed(name)) {
                    c = host.loadClass(name);
                } else {
                    throw new ClassNotFoundException(name + " could not be found");
                }
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        throw new ClassNotFoundException(name + " could not be found");
    }

    /** Whether a binary name from outside the user's classes may be handed out. */
    static boolean allowed(String binaryName) {
        String internal = binaryName.replace('.', '/');
        return SandboxPolicy.classVerdict(internal) == null
                || SandboxPolicy.BOOTSTRAP_LINKAGE.contains(internal);
    }

    @Override
    public URL getResource(String name) {
        return null;
    }

    @Override
    public Enumeration<URL> getResources(String name) {
        return Collections.emptyEnumeration();
    }

    @Override
    public InputStream getResourceAsStream(String name) {
        return null;
    }

    @Override
    protected URL findResource(String name) {
        return null;
    }

    @Override
    protected Enumeration<URL> findResources(String name) {
        return Collections.emptyEnumeration();
    }
}
