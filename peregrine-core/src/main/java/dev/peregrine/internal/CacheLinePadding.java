package dev.peregrine.internal;

/**
 * The first padding of a class whose fields are split by thread onto cache-line pairs of their own
 * ({@code MpscArrayQueue}, the command and worker rings, the reactor): 136 bytes between the object header, with
 * whatever object precedes this one in the heap, and the first group of hot fields. Bytes, not 16 longs: the JVM lays a
 * subclass's small fields into holes of its superclasses' layout (the 4 bytes after the 12-byte header, the gap before
 * an 8-byte-aligned field), which put a hot field on the previous object's line; bytes leave no hole, and 8 spare bytes
 * cover an alignment gap. The pads between a class's own groups are its own. {@code FieldPaddingTest} checks the
 * offsets.
 */
public abstract class CacheLinePadding {
    byte p0_00, p0_01, p0_02, p0_03, p0_04, p0_05, p0_06, p0_07, p0_08, p0_09, p0_0a, p0_0b, p0_0c, p0_0d, p0_0e, p0_0f;
    byte p0_10, p0_11, p0_12, p0_13, p0_14, p0_15, p0_16, p0_17, p0_18, p0_19, p0_1a, p0_1b, p0_1c, p0_1d, p0_1e, p0_1f;
    byte p0_20, p0_21, p0_22, p0_23, p0_24, p0_25, p0_26, p0_27, p0_28, p0_29, p0_2a, p0_2b, p0_2c, p0_2d, p0_2e, p0_2f;
    byte p0_30, p0_31, p0_32, p0_33, p0_34, p0_35, p0_36, p0_37, p0_38, p0_39, p0_3a, p0_3b, p0_3c, p0_3d, p0_3e, p0_3f;
    byte p0_40, p0_41, p0_42, p0_43, p0_44, p0_45, p0_46, p0_47, p0_48, p0_49, p0_4a, p0_4b, p0_4c, p0_4d, p0_4e, p0_4f;
    byte p0_50, p0_51, p0_52, p0_53, p0_54, p0_55, p0_56, p0_57, p0_58, p0_59, p0_5a, p0_5b, p0_5c, p0_5d, p0_5e, p0_5f;
    byte p0_60, p0_61, p0_62, p0_63, p0_64, p0_65, p0_66, p0_67, p0_68, p0_69, p0_6a, p0_6b, p0_6c, p0_6d, p0_6e, p0_6f;
    byte p0_70, p0_71, p0_72, p0_73, p0_74, p0_75, p0_76, p0_77, p0_78, p0_79, p0_7a, p0_7b, p0_7c, p0_7d, p0_7e, p0_7f;
    byte p0_80, p0_81, p0_82, p0_83, p0_84, p0_85, p0_86, p0_87;

    /** For subclasses. */
    protected CacheLinePadding() {
    }
}
