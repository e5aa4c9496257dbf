package com.wualabs.backtestd.host;

import java.io.IOException;

/** Instruction lengths and constant-pool operands of JVM bytecode, for the verifier's walk. */
final class Opcodes {
    private Opcodes() {}

    /** The constant pool index an instruction refers to, or 0 when it refers to none. */
    static int constantIndex(byte[] code, int pc) {
        int op = code[pc] & 0xFF;
        return switch (op) {
            case 0x12 -> code[pc + 1] & 0xFF; // ldc
            case 0x13, 0x14, // ldc_w, ldc2_w
                 0xb2, 0xb3, 0xb4, 0xb5, // get/put static/field
                 0xb6, 0xb7, 0xb8, 0xb9, 0xba, // invoke*
                 // new, anewarray, checkcast, instanceof, multianewarray
                 0xbb, 0xbd, 0xc0, 0xc1, 0xc5 ->
                    ((code[pc + 1] & 0xFF) << 8) | (code[pc + 2] & 0xFF);
            default -> 0;
        };
    }

    /** The length in bytes of the instruction at {@code pc}. */
    static int length(byte[] code, int pc, int op) throws IOException {
        if (op <= 0x0f || (op >= 0x1a && op <= 0x35) || (op >= 0x3b && op <= 0x83)
                || (op >= 0x85 && op <= 0x98) || (op >= 0xac && op <= 0xb1)
                || op == 0xbe || op == 0xbf || op == 0xc2 || op == 0xc3) {
            return 1;
        }
        if (op == 0x10 || op == 0x12 || (op >= 0x15 && op <= 0x19) || (op >= 0x36 && op <= 0x3a)
                || op == 0xa9 || op == 0xbc) {
            return 2;
        }
        if (op == 0x11 || op == 0x13 || op == 0x14 || op == 0x84 || (op >= 0x99 && op <= 0xa8)
                || (op >= 0xb2 && op <= 0xb8) || op == 0xbb || op == 0xbd || op == 0xc0
                || op == 0xc1 || op == 0xc6 || op == 0xc7) {
            return 3;
        }
        if (op == 0xc5) {
            return 4;
        }
        if (op == 0xb9 || op == 0xba || op == 0xc8 || op == 0xc9) {
            return 5;
        }
        if (op == 0xc4) { // wide
            return (code[pc + 1] & 0xFF) == 0x84 ? 6 : 4;
        }
        if (op == 0xaa || op == 0xab) {
            return switchLength(code, pc, op);
        }
        throw new IOException("invalid opcode 0x" + Integer.toHexString(op) + " at " + pc);
    }

    private static int switchLength(byte[] code, int pc, int op) {
        int base = pc + 1 + ((4 - ((pc + 1) % 4)) % 4);
        if (op == 0xaa) { // tableswitch
            int low = readInt(code, base + 4);
            int high = readInt(code, base + 8);
            return base - pc + 12 + 4 * (high - low + 1);
        }
        int pairs = readInt(code, base + 4); // lookupswitch
        return base - pc + 8 + 8 * pairs;
    }

    private static int readInt(byte[] code, int at) {
        return ((code[at] & 0xFF) << 24) | ((code[at + 1] & 0xFF) << 16)
                | ((code[at + 2] & 0xFF) << 8) | (code[at + 3] & 0xFF);
    }
}
