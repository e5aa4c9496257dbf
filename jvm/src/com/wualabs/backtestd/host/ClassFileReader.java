package com.wualabs.backtestd.host;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal class-file parser: constant pool, declared members, code, line numbers and bootstrap
 * methods. Java 17 has no public class-file API, and the verifier needs exactly these parts.
 *
 * <p>It is strict on purpose: anything it does not understand (an unknown constant tag, a code
 * array that does not decode) is an error, so a crafted class file cannot hide a reference.
 */
final class ClassFileReader {
    static final int UTF8 = 1;
    static final int INTEGER = 3;
    static final int FLOAT = 4;
    static final int LONG = 5;
    static final int DOUBLE = 6;
    static final int CLASS = 7;
    static final int STRING = 8;
    static final int FIELDREF = 9;
    static final int METHODREF = 10;
    static final int INTERFACE_METHODREF = 11;
    static final int NAME_AND_TYPE = 12;
    static final int METHOD_HANDLE = 15;
    static final int METHOD_TYPE = 16;
    static final int DYNAMIC = 17;
    static final int INVOKE_DYNAMIC = 18;
    static final int MODULE = 19;
    static final int PACKAGE = 20;

    /** One declared field or method with, for methods, its code and line table. */
    record Member(String name, String descriptor, int access, byte[] code, int[] lineTable,
                  int[] exceptionCatchTypes) {
        /** The source line for a bytecode offset, or -1 without a line table. */
        int lineAt(int pc) {
            int line = -1;
            int bestPc = -1;
            if (lineTable == null) {
                return -1;
            }
            for (int i = 0; i + 1 < lineTable.length; i += 2) {
                if (lineTable[i] <= pc && lineTable[i] >= bestPc) {
                    bestPc = lineTable[i];
                    line = lineTable[i + 1];
                }
            }
            return line;
        }

        /** The first line of the method body, or -1. */
        int firstLine() {
            if (lineTable == null || lineTable.length < 2) {
                return -1;
            }
            int min = Integer.MAX_VALUE;
            for (int i = 1; i < lineTable.length; i += 2) {
                min = Math.min(min, lineTable[i]);
            }
            return min;
        }
    }

    final int[] tags;
    final int[] ref1;
    final int[] ref2;
    final String[] utf8;
    final String thisClass;
    final String superClass;
    final int access;
    final List<String> interfaces = new ArrayList<>();
    final List<Member> fields = new ArrayList<>();
    final List<Member> methods = new ArrayList<>();
    /** Per bootstrap method: [method handle index, arg indices...]. */
    final List<int[]> bootstrapMethods = new ArrayList<>();
    /** CONSTANT_Class indices named by the InnerClasses attribute (metadata only). */
    final List<Integer> innerClassEntries = new ArrayList<>();
    String sourceFile;

    ClassFileReader(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        int major = in.readUnsignedShort();
        if (major > 69) {
            throw new IOException("class file version " + major + " is not supported");
        }
        int count = in.readUnsignedShort();
        tags = new int[count];
        ref1 = new int[count];
        ref2 = new int[count];
        utf8 = new String[count];
        readConstantPool(in, count);
        access = in.readUnsignedShort();
        thisClass = className(in.readUnsignedShort());
        int superIndex = in.readUnsignedShort();
        superClass = superIndex == 0 ? null : className(superIndex);
        int interfaceCount = in.readUnsignedShort();
        for (int i = 0; i < interfaceCount; i++) {
            interfaces.add(className(in.readUnsignedShort()));
        }
        readMembers(in, fields, false);
        readMembers(in, methods, true);
        readClassAttributes(in);
    }

    private void readConstantPool(DataInputStream in, int count) throws IOException {
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            tags[i] = tag;
            switch (tag) {
                case UTF8 -> utf8[i] = in.readUTF();
                case INTEGER, FLOAT -> in.readInt();
                case LONG, DOUBLE -> {
                    in.readLong();
                    i++;
                }
                case CLASS, STRING, METHOD_TYPE, MODULE, PACKAGE ->
                        ref1[i] = in.readUnsignedShort();
                case FIELDREF, METHODREF, INTERFACE_METHODREF, NAME_AND_TYPE, DYNAMIC,
                     INVOKE_DYNAMIC -> {
                    ref1[i] = in.readUnsignedShort();
                    ref2[i] = in.readUnsignedShort();
                }
                case METHOD_HANDLE -> {
                    ref1[i] = in.readUnsignedByte();
                    ref2[i] = in.readUnsignedShort();
                }
                default -> throw new IOException("unknown constant pool tag " + tag);
            }
        }
    }

    private void readMembers(DataInputStream in, List<Member> out, boolean methods)
            throws IOException {
        int count = in.readUnsignedShort();
        for (int m = 0; m < count; m++) {
            int memberAccess = in.readUnsignedShort();
            String name = utf(in.readUnsignedShort());
            String descriptor = utf(in.readUnsignedShort());
            byte[] code = null;
            int[] lines = null;
            int[] catchTypes = null;
            int attributes = in.readUnsignedShort();
            for (int a = 0; a < attributes; a++) {
                String attr = utf(in.readUnsignedShort());
                int length = in.readInt();
                if (methods && attr.equals("Code")) {
                    in.readUnsignedShort();
                    in.readUnsignedShort();
                    code = new byte[in.readInt()];
                    in.readFully(code);
                    int handlers = in.readUnsignedShort();
                    catchTypes = new int[handlers];
                    for (int h = 0; h < handlers; h++) {
                        in.readUnsignedShort();
                        in.readUnsignedShort();
                        in.readUnsignedShort();
                        catchTypes[h] = in.readUnsignedShort();
                    }
                    lines = readCodeAttributes(in);
                } else {
                    in.skipNBytes(length);
                }
            }
            out.add(new Member(name, descriptor, memberAccess, code, lines, catchTypes));
        }
    }

    private int[] readCodeAttributes(DataInputStream in) throws IOException {
        int[] lines = null;
        int count = in.readUnsignedShort();
        for (int a = 0; a < count; a++) {
            String attr = utf(in.readUnsignedShort());
            int length = in.readInt();
            if (attr.equals("LineNumberTable")) {
                int entries = in.readUnsignedShort();
                int[] table = new int[entries * 2];
                for (int e = 0; e < entries; e++) {
                    table[2 * e] = in.readUnsignedShort();
                    table[2 * e + 1] = in.readUnsignedShort();
                }
                lines = lines == null ? table : concat(lines, table);
            } else {
                in.skipNBytes(length);
            }
        }
        return lines;
    }

    private void readClassAttributes(DataInputStream in) throws IOException {
        int count = in.readUnsignedShort();
        for (int a = 0; a < count; a++) {
            String attr = utf(in.readUnsignedShort());
            int length = in.readInt();
            if (attr.equals("BootstrapMethods")) {
                int n = in.readUnsignedShort();
                for (int b = 0; b < n; b++) {
                    int handle = in.readUnsignedShort();
                    int args = in.readUnsignedShort();
                    int[] entry = new int[args + 1];
                    entry[0] = handle;
                    for (int k = 0; k < args; k++) {
                        entry[k + 1] = in.readUnsignedShort();
                    }
                    bootstrapMethods.add(entry);
                }
            } else if (attr.equals("InnerClasses")) {
                int n = in.readUnsignedShort();
                for (int k = 0; k < n; k++) {
                    innerClassEntries.add(in.readUnsignedShort());
                    innerClassEntries.add(in.readUnsignedShort());
                    in.readUnsignedShort();
                    in.readUnsignedShort();
                }
            } else if (attr.equals("SourceFile")) {
                sourceFile = utf(in.readUnsignedShort());
            } else {
                in.skipNBytes(length);
            }
        }
    }

    private static int[] concat(int[] a, int[] b) {
        int[] r = new int[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** The UTF-8 constant at {@code index}. */
    String utf(int index) throws IOException {
        if (index <= 0 || index >= tags.length || tags[index] != UTF8) {
            throw new IOException("constant " + index + " is not UTF8");
        }
        return utf8[index];
    }

    /** The internal name held by the CONSTANT_Class at {@code index}. */
    String className(int index) throws IOException {
        if (index <= 0 || index >= tags.length || tags[index] != CLASS) {
            throw new IOException("constant " + index + " is not a class");
        }
        return utf(ref1[index]);
    }

    /** Reads the internal name of a class file without full parsing. */
    static String nameOf(byte[] bytes) throws IOException {
        return new ClassFileReader(bytes).thisClass;
    }
}
