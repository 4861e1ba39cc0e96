/* DUMPI rank files, read from their published definition (sst-dumpi:
 * docs/traceformat.dox, dumpi/common/io.c for the index, header, footer and
 * size table, dumpi/common/iodefs.h for the encodings, dumpi/common/
 * dumpiio.c for each call's argument order, funclabels.h for the labels).
 *
 * All integers are big-endian. A record is: u16 label, u8 mask, u16 thread
 * (mask bit 6), CPU times (bit 2) and wall times (bit 3) as u16 seconds
 * minus the stream's bias + u32 ns for start and stop, PAPI counters (bit
 * 7: u8 n, n x 2 x u64), then the call's arguments. The table below gives
 * every call's arguments as descriptor letters:
 *   i int32   h uint16 handle   b uint8   l int64
 *   I int32 array   H uint16 array   B uint8 array   (u32 count first)
 *   s char array (u32 length + bytes)   S u32 n + n x s   T u32 n + n x S
 *   J u32 n + n x I   x statuses (when mask bits 0-1: u32 n + n x (i32
 *   bytes, i32 source, i8 cancelled, i8 error, i32 tag since 0.6.3))
 *   A argv (u32 argc [+ a repeated u32 before 0.6.2] + argc x s)
 *   V int32 array since 0.6.9, one int32 before   W same since 0.6.8
 *   ?x  present only when argument cond_rank equals argument cond_root
 *       (root-only fields of gather/scatter and spawn)
 */
#include "traces/traces_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"

static const struct dumpi_call {
	const char *name;
	const char *args; /* NULL: the format defines no reader for it */
	int8_t cond_rank, cond_root;
} dumpi_calls[DUMPI_N_LABELS] = {
	[0] = {"MPI_Send", "ihiih", -1, -1},
	[1] = {"MPI_Recv", "ihiihx", -1, -1},
	[2] = {"MPI_Get_count", "xhi", -1, -1},
	[3] = {"MPI_Bsend", "ihiih", -1, -1},
	[4] = {"MPI_Ssend", "ihiih", -1, -1},
	[5] = {"MPI_Rsend", "ihiih", -1, -1},
	[6] = {"MPI_Buffer_attach", "i", -1, -1},
	[7] = {"MPI_Buffer_detach", "i", -1, -1},
	[8] = {"MPI_Isend", "ihiihi", -1, -1},
	[9] = {"MPI_Ibsend", "ihiihi", -1, -1},
	[10] = {"MPI_Issend", "ihiihi", -1, -1},
	[11] = {"MPI_Irsend", "ihiihi", -1, -1},
	[12] = {"MPI_Irecv", "ihiihi", -1, -1},
	[13] = {"MPI_Wait", "ix", -1, -1},
	[14] = {"MPI_Test", "iix", -1, -1},
	[15] = {"MPI_Request_free", "i", -1, -1},
	[16] = {"MPI_Waitany", "iIix", -1, -1},
	[17] = {"MPI_Testany", "iIiix", -1, -1},
	[18] = {"MPI_Waitall", "iIx", -1, -1},
	[19] = {"MPI_Testall", "iIix", -1, -1},
	[20] = {"MPI_Waitsome", "iIiIx", -1, -1},
	[21] = {"MPI_Testsome", "iIiIx", -1, -1},
	[22] = {"MPI_Iprobe", "iihix", -1, -1},
	[23] = {"MPI_Probe", "iihx", -1, -1},
	[24] = {"MPI_Cancel", "i", -1, -1},
	[25] = {"MPI_Test_cancelled", "xi", -1, -1},
	[26] = {"MPI_Send_init", "ihiihi", -1, -1},
	[27] = {"MPI_Bsend_init", "ihiihi", -1, -1},
	[28] = {"MPI_Ssend_init", "ihiihi", -1, -1},
	[29] = {"MPI_Rsend_init", "ihiihi", -1, -1},
	[30] = {"MPI_Recv_init", "ihiihi", -1, -1},
	[31] = {"MPI_Start", "i", -1, -1},
	[32] = {"MPI_Startall", "iI", -1, -1},
	[33] = {"MPI_Sendrecv", "ihiiihiihx", -1, -1},
	[34] = {"MPI_Sendrecv_replace", "ihiiiihx", -1, -1},
	[35] = {"MPI_Type_contiguous", "ihh", -1, -1},
	[36] = {"MPI_Type_vector", "iiihh", -1, -1},
	[37] = {"MPI_Type_hvector", "iiihh", -1, -1},
	[38] = {"MPI_Type_indexed", "iIIhh", -1, -1},
	[39] = {"MPI_Type_hindexed", "iIIhh", -1, -1},
	[40] = {"MPI_Type_struct", "iIVHh", -1, -1},
	[41] = {"MPI_Address", "i", -1, -1},
	[42] = {"MPI_Type_extent", "hi", -1, -1},
	[43] = {"MPI_Type_size", "hi", -1, -1},
	[44] = {"MPI_Type_lb", "hi", -1, -1},
	[45] = {"MPI_Type_ub", "hi", -1, -1},
	[46] = {"MPI_Type_commit", "h", -1, -1},
	[47] = {"MPI_Type_free", "h", -1, -1},
	[48] = {"MPI_Get_elements", "xhi", -1, -1},
	[49] = {"MPI_Pack", "ihiiih", -1, -1},
	[50] = {"MPI_Unpack", "iiiihh", -1, -1},
	[51] = {"MPI_Pack_size", "ihhi", -1, -1},
	[52] = {"MPI_Barrier", "h", -1, -1},
	[53] = {"MPI_Bcast", "ihih", -1, -1},
	[54] = {"MPI_Gather", "iihih?i?h", 0, 3},
	[55] = {"MPI_Gatherv", "iiihih?I?Ih", 0, 4},
	[56] = {"MPI_Scatter", "iihih?i?h", 0, 3},
	[57] = {"MPI_Scatterv", "iihihih?I?I", 0, 5},
	[58] = {"MPI_Allgather", "ihihh", -1, -1},
	[59] = {"MPI_Allgatherv", "iihIIhh", -1, -1},
	[60] = {"MPI_Alltoall", "ihihh", -1, -1},
	[61] = {"MPI_Alltoallv", "iIIhIIhh", -1, -1},
	[62] = {"MPI_Reduce", "ihbih", -1, -1},
	[63] = {"MPI_Op_create", "ib", -1, -1},
	[64] = {"MPI_Op_free", "b", -1, -1},
	[65] = {"MPI_Allreduce", "ihbh", -1, -1},
	[66] = {"MPI_Reduce_scatter", "iIhbh", -1, -1},
	[67] = {"MPI_Scan", "ihbh", -1, -1},
	[68] = {"MPI_Group_size", "hi", -1, -1},
	[69] = {"MPI_Group_rank", "hi", -1, -1},
	[70] = {"MPI_Group_translate_ranks", "hiIhI", -1, -1},
	[71] = {"MPI_Group_compare", "hhb", -1, -1},
	[72] = {"MPI_Comm_group", "hh", -1, -1},
	[73] = {"MPI_Group_union", "hhh", -1, -1},
	[74] = {"MPI_Group_intersection", "hhh", -1, -1},
	[75] = {"MPI_Group_difference", "hhh", -1, -1},
	[76] = {"MPI_Group_incl", "hiIh", -1, -1},
	[77] = {"MPI_Group_excl", "hiIh", -1, -1},
	[78] = {"MPI_Group_range_incl", "hiJh", -1, -1},
	[79] = {"MPI_Group_range_excl", "hiJh", -1, -1},
	[80] = {"MPI_Group_free", "h", -1, -1},
	[81] = {"MPI_Comm_size", "hi", -1, -1},
	[82] = {"MPI_Comm_rank", "hi", -1, -1},
	[83] = {"MPI_Comm_compare", "hhb", -1, -1},
	[84] = {"MPI_Comm_dup", "hh", -1, -1},
	[85] = {"MPI_Comm_create", "hhh", -1, -1},
	[86] = {"MPI_Comm_split", "hiih", -1, -1},
	[87] = {"MPI_Comm_free", "h", -1, -1},
	[88] = {"MPI_Comm_test_inter", "hi", -1, -1},
	[89] = {"MPI_Comm_remote_size", "hi", -1, -1},
	[90] = {"MPI_Comm_remote_group", "hh", -1, -1},
	[91] = {"MPI_Intercomm_create", "hihiih", -1, -1},
	[92] = {"MPI_Intercomm_merge", "hih", -1, -1},
	[93] = {"MPI_Keyval_create", "h", -1, -1},
	[94] = {"MPI_Keyval_free", "h", -1, -1},
	[95] = {"MPI_Attr_put", "hi", -1, -1},
	[96] = {"MPI_Attr_get", "hii", -1, -1},
	[97] = {"MPI_Attr_delete", "hi", -1, -1},
	[98] = {"MPI_Topo_test", "hb", -1, -1},
	[99] = {"MPI_Cart_create", "hiIIih", -1, -1},
	[100] = {"MPI_Dims_create", "iiII", -1, -1},
	[101] = {"MPI_Graph_create", "ihiIIih", -1, -1},
	[102] = {"MPI_Graphdims_get", "hii", -1, -1},
	[103] = {"MPI_Graph_get", "iihiiII", -1, -1},
	[104] = {"MPI_Cartdim_get", "hi", -1, -1},
	[105] = {"MPI_Cart_get", "ihiIIW", -1, -1},
	[106] = {"MPI_Cart_rank", "ihIi", -1, -1},
	[107] = {"MPI_Cart_coords", "ihiiI", -1, -1},
	[108] = {"MPI_Graph_neighbors_count", "hii", -1, -1},
	[109] = {"MPI_Graph_neighbors", "ihiiI", -1, -1},
	[110] = {"MPI_Cart_shift", "hiiii", -1, -1},
	[111] = {"MPI_Cart_sub", "ihIh", -1, -1},
	[112] = {"MPI_Cart_map", "hiIIi", -1, -1},
	[113] = {"MPI_Graph_map", "ihiIIi", -1, -1},
	[114] = {"MPI_Get_processor_name", "si", -1, -1},
	[115] = {"MPI_Get_version", "ii", -1, -1},
	[116] = {"MPI_Errhandler_create", "h", -1, -1},
	[117] = {"MPI_Errhandler_set", "hh", -1, -1},
	[118] = {"MPI_Errhandler_get", "hh", -1, -1},
	[119] = {"MPI_Errhandler_free", "h", -1, -1},
	[120] = {"MPI_Error_string", "isi", -1, -1},
	[121] = {"MPI_Error_class", "ii", -1, -1},
	[122] = {"MPI_Wtime", "", -1, -1},
	[123] = {"MPI_Wtick", "", -1, -1},
	[124] = {"MPI_Init", "A", -1, -1},
	[125] = {"MPI_Finalize", "", -1, -1},
	[126] = {"MPI_Initialized", "i", -1, -1},
	[127] = {"MPI_Abort", "hi", -1, -1},
	[128] = {"MPI_Pcontrol", NULL, -1, -1},
	[129] = {"MPI_Close_port", "s", -1, -1},
	[130] = {"MPI_Comm_accept", "shihh", -1, -1},
	[131] = {"MPI_Comm_connect", "shihh", -1, -1},
	[132] = {"MPI_Comm_disconnect", "h", -1, -1},
	[133] = {"MPI_Comm_get_parent", "h", -1, -1},
	[134] = {"MPI_Comm_join", "ih", -1, -1},
	[135] = {"MPI_Comm_spawn", "iihh?s?S?i?h?I", 0, 1},
	[136] = {"MPI_Comm_spawn_multiple", "iiihh?i?S?T?I?H?I", 1, 2},
	[137] = {"MPI_Lookup_name", "shs", -1, -1},
	[138] = {"MPI_Open_port", "hs", -1, -1},
	[139] = {"MPI_Publish_name", "shs", -1, -1},
	[140] = {"MPI_Unpublish_name", "shs", -1, -1},
	[141] = {"MPI_Accumulate", "ihiiihbh", -1, -1},
	[142] = {"MPI_Get", "ihiiihh", -1, -1},
	[143] = {"MPI_Put", "ihiiihh", -1, -1},
	[144] = {"MPI_Win_complete", "h", -1, -1},
	[145] = {"MPI_Win_create", "iihhh", -1, -1},
	[146] = {"MPI_Win_fence", "bh", -1, -1},
	[147] = {"MPI_Win_free", "h", -1, -1},
	[148] = {"MPI_Win_get_group", "hh", -1, -1},
	[149] = {"MPI_Win_lock", "bibh", -1, -1},
	[150] = {"MPI_Win_post", "hbh", -1, -1},
	[151] = {"MPI_Win_start", "hbh", -1, -1},
	[152] = {"MPI_Win_test", "hi", -1, -1},
	[153] = {"MPI_Win_unlock", "ih", -1, -1},
	[154] = {"MPI_Win_wait", "h", -1, -1},
	[155] = {"MPI_Alltoallw", "iIIHIIHh", -1, -1},
	[156] = {"MPI_Exscan", "ihbh", -1, -1},
	[157] = {"MPI_Add_error_class", "i", -1, -1},
	[158] = {"MPI_Add_error_code", "ii", -1, -1},
	[159] = {"MPI_Add_error_string", "is", -1, -1},
	[160] = {"MPI_Comm_call_errhandler", "hi", -1, -1},
	[161] = {"MPI_Comm_create_keyval", "h", -1, -1},
	[162] = {"MPI_Comm_delete_attr", "hh", -1, -1},
	[163] = {"MPI_Comm_free_keyval", "h", -1, -1},
	[164] = {"MPI_Comm_get_attr", "hhi", -1, -1},
	[165] = {"MPI_Comm_get_name", "hsi", -1, -1},
	[166] = {"MPI_Comm_set_attr", "hh", -1, -1},
	[167] = {"MPI_Comm_set_name", "hs", -1, -1},
	[168] = {"MPI_File_call_errhandler", "hi", -1, -1},
	[169] = {"MPI_Grequest_complete", "i", -1, -1},
	[170] = {"MPI_Grequest_start", "i", -1, -1},
	[171] = {"MPI_Init_thread", "Abb", -1, -1},
	[172] = {"MPI_Is_thread_main", "i", -1, -1},
	[173] = {"MPI_Query_thread", "b", -1, -1},
	[174] = {"MPI_Status_set_cancelled", "xi", -1, -1},
	[175] = {"MPI_Status_set_elements", "xhi", -1, -1},
	[176] = {"MPI_Type_create_keyval", "h", -1, -1},
	[177] = {"MPI_Type_delete_attr", "hh", -1, -1},
	[178] = {"MPI_Type_dup", "hh", -1, -1},
	[179] = {"MPI_Type_free_keyval", "h", -1, -1},
	[180] = {"MPI_Type_get_attr", "hhi", -1, -1},
	[181] = {"MPI_Type_get_contents", "iiihiiiIIH", -1, -1},
	[182] = {"MPI_Type_get_envelope", "hiiib", -1, -1},
	[183] = {"MPI_Type_get_name", "hsi", -1, -1},
	[184] = {"MPI_Type_set_attr", "hh", -1, -1},
	[185] = {"MPI_Type_set_name", "hs", -1, -1},
	[186] = {"MPI_Type_match_size", "bih", -1, -1},
	[187] = {"MPI_Win_call_errhandler", "hi", -1, -1},
	[188] = {"MPI_Win_create_keyval", "h", -1, -1},
	[189] = {"MPI_Win_delete_attr", "hh", -1, -1},
	[190] = {"MPI_Win_free_keyval", "h", -1, -1},
	[191] = {"MPI_Win_get_attr", "hhi", -1, -1},
	[192] = {"MPI_Win_get_name", "hsi", -1, -1},
	[193] = {"MPI_Win_set_attr", "hh", -1, -1},
	[194] = {"MPI_Win_set_name", "hs", -1, -1},
	[195] = {"MPI_Alloc_mem", "ih", -1, -1},
	[196] = {"MPI_Comm_create_errhandler", "h", -1, -1},
	[197] = {"MPI_Comm_get_errhandler", "hh", -1, -1},
	[198] = {"MPI_Comm_set_errhandler", "hh", -1, -1},
	[199] = {"MPI_File_create_errhandler", "h", -1, -1},
	[200] = {"MPI_File_get_errhandler", "hh", -1, -1},
	[201] = {"MPI_File_set_errhandler", "hh", -1, -1},
	[202] = {"MPI_Finalized", "i", -1, -1},
	[203] = {"MPI_Free_mem", "", -1, -1},
	[204] = {"MPI_Get_address", "i", -1, -1},
	[205] = {"MPI_Info_create", "h", -1, -1},
	[206] = {"MPI_Info_delete", "hs", -1, -1},
	[207] = {"MPI_Info_dup", "hh", -1, -1},
	[208] = {"MPI_Info_free", "h", -1, -1},
	[209] = {"MPI_Info_get", "hsisi", -1, -1},
	[210] = {"MPI_Info_get_nkeys", "hi", -1, -1},
	[211] = {"MPI_Info_get_nthkey", "his", -1, -1},
	[212] = {"MPI_Info_get_valuelen", "hsii", -1, -1},
	[213] = {"MPI_Info_set", "hss", -1, -1},
	[214] = {"MPI_Pack_external", "sihiii", -1, -1},
	[215] = {"MPI_Pack_external_size", "sihi", -1, -1},
	[216] = {"MPI_Request_get_status", "iix", -1, -1},
	[217] = {"MPI_Type_create_darray", "iiiIBIIbhh", -1, -1},
	[218] = {"MPI_Type_create_hindexed", "iIIhh", -1, -1},
	[219] = {"MPI_Type_create_hvector", "iiihh", -1, -1},
	[220] = {"MPI_Type_create_indexed_block", "iiIhh", -1, -1},
	[221] = {"MPI_Type_create_resized", "hiih", -1, -1},
	[222] = {"MPI_Type_create_struct", "iIIHh", -1, -1},
	[223] = {"MPI_Type_create_subarray", "iIIIbhh", -1, -1},
	[224] = {"MPI_Type_get_extent", "hii", -1, -1},
	[225] = {"MPI_Type_get_true_extent", "hii", -1, -1},
	[226] = {"MPI_Unpack_external", "siiiih", -1, -1},
	[227] = {"MPI_Win_create_errhandler", "h", -1, -1},
	[228] = {"MPI_Win_get_errhandler", "hh", -1, -1},
	[229] = {"MPI_Win_set_errhandler", "hh", -1, -1},
	[230] = {"MPI_File_open", "hsbhh", -1, -1},
	[231] = {"MPI_File_close", "h", -1, -1},
	[232] = {"MPI_File_delete", "sh", -1, -1},
	[233] = {"MPI_File_set_size", "hl", -1, -1},
	[234] = {"MPI_File_preallocate", "hl", -1, -1},
	[235] = {"MPI_File_get_size", "hl", -1, -1},
	[236] = {"MPI_File_get_group", "hh", -1, -1},
	[237] = {"MPI_File_get_amode", "hb", -1, -1},
	[238] = {"MPI_File_set_info", "hh", -1, -1},
	[239] = {"MPI_File_get_info", "hh", -1, -1},
	[240] = {"MPI_File_set_view", "hlhhsh", -1, -1},
	[241] = {"MPI_File_get_view", "hlhhs", -1, -1},
	[242] = {"MPI_File_read_at", "hlihx", -1, -1},
	[243] = {"MPI_File_read_at_all", "hlihx", -1, -1},
	[244] = {"MPI_File_write_at", "hlihx", -1, -1},
	[245] = {"MPI_File_write_at_all", "hlihx", -1, -1},
	[246] = {"MPI_File_iread_at", "hlihi", -1, -1},
	[247] = {"MPI_File_iwrite_at", "hlihi", -1, -1},
	[248] = {"MPI_File_read", "hihx", -1, -1},
	[249] = {"MPI_File_read_all", "hihx", -1, -1},
	[250] = {"MPI_File_write", "hihx", -1, -1},
	[251] = {"MPI_File_write_all", "hihx", -1, -1},
	[252] = {"MPI_File_iread", "hihi", -1, -1},
	[253] = {"MPI_File_iwrite", "hihi", -1, -1},
	[254] = {"MPI_File_seek", "hlb", -1, -1},
	[255] = {"MPI_File_get_position", "hl", -1, -1},
	[256] = {"MPI_File_get_byte_offset", "hll", -1, -1},
	[257] = {"MPI_File_read_shared", "hihx", -1, -1},
	[258] = {"MPI_File_write_shared", "hihx", -1, -1},
	[259] = {"MPI_File_iread_shared", "hihi", -1, -1},
	[260] = {"MPI_File_iwrite_shared", "hihi", -1, -1},
	[261] = {"MPI_File_read_ordered", "hihx", -1, -1},
	[262] = {"MPI_File_write_ordered", "hihx", -1, -1},
	[263] = {"MPI_File_seek_shared", "hlb", -1, -1},
	[264] = {"MPI_File_get_position_shared", "hl", -1, -1},
	[265] = {"MPI_File_read_at_all_begin", "hlih", -1, -1},
	[266] = {"MPI_File_read_at_all_end", "hx", -1, -1},
	[267] = {"MPI_File_write_at_all_begin", "hlih", -1, -1},
	[268] = {"MPI_File_write_at_all_end", "hx", -1, -1},
	[269] = {"MPI_File_read_all_begin", "hih", -1, -1},
	[270] = {"MPI_File_read_all_end", "hx", -1, -1},
	[271] = {"MPI_File_write_all_begin", "hih", -1, -1},
	[272] = {"MPI_File_write_all_end", "hx", -1, -1},
	[273] = {"MPI_File_read_ordered_begin", "hih", -1, -1},
	[274] = {"MPI_File_read_ordered_end", "hx", -1, -1},
	[275] = {"MPI_File_write_ordered_begin", "hih", -1, -1},
	[276] = {"MPI_File_write_ordered_end", "hx", -1, -1},
	[277] = {"MPI_File_get_type_extent", "hhi", -1, -1},
	[278] = {"MPI_Register_datarep", "s", -1, -1},
	[279] = {"MPI_File_set_atomicity", "hi", -1, -1},
	[280] = {"MPI_File_get_atomicity", "hi", -1, -1},
	[281] = {"MPI_File_sync", "h", -1, -1},
	[282] = {"MPIO_Test", "iix", -1, -1},
	[283] = {"MPIO_Wait", "ix", -1, -1},
	[284] = {"MPIO_Testall", "iIix", -1, -1},
	[285] = {"MPIO_Waitall", "iIx", -1, -1},
	[286] = {"MPIO_Testany", "iIiix", -1, -1},
	[287] = {"MPIO_Waitany", "iIix", -1, -1},
	[288] = {"MPIO_Waitsome", "iIiIx", -1, -1},
	[289] = {"MPIO_Testsome", "iIiIx", -1, -1},
	[291] = {"(function enter)", "l", -1, -1},
	[292] = {"(function exit)", "l", -1, -1},
};

#define DUMPI_HEAD_MAGIC 0xffaadd44554d5049ull /* {0xff,0xaa,0xdd,'D','U','M','P','I'} */
#define DUMPI_FOOT_MAGIC 0xf007fee7ull
#define DUMPI_ALL_FUNCTIONS 290
#define DUMPI_MAX_SEC (1ll << 33) /* record times: 272 years after the epoch; x 1e9 fits int64 */

const char *dumpi_label_name(unsigned label)
{
	return label < DUMPI_N_LABELS ? dumpi_calls[label].name : NULL;
}

static inline uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static bool have_version(const uint8_t v[3], int a, int b, int c)
{
	if (v[0] != a)
		return v[0] > a;
	if (v[1] != b)
		return v[1] > b;
	return v[2] >= c;
}

int64_t dumpi_arr(const struct dumpi_stream *s, const struct dumpi_arg *a, uint32_t i)
{
	if (i >= a->n)
		NL_BUG("dumpi array index %u of %u", i, a->n);
	switch (a->type) {
	case 'H':
		return be16(s->p + a->off + 2 * (size_t)i);
	case 'B':
		return s->p[a->off + i];
	default: /* I, V, W */
		return (int32_t)be32(s->p + a->off + 4 * (size_t)i);
	}
}

static size_t status_size(const struct dumpi_stream *s)
{
	return have_version(s->ver, 0, 6, 3) ? 14 : 10;
}

void dumpi_status(const struct dumpi_stream *s, const struct dumpi_arg *a, uint32_t i, int32_t *bytes,
		  int32_t *source)
{
	const uint8_t *p = s->p + a->off + status_size(s) * i;
	*bytes = (int32_t)be32(p);
	*source = (int32_t)be32(p + 4);
}

int dumpi_status_cancelled(const struct dumpi_stream *s, const struct dumpi_arg *a, uint32_t i)
{
	/* i32 bytes, i32 source, i8 cancelled, ... in every DUMPI version. */
	return s->p[a->off + status_size(s) * i + 8] != 0;
}

const char *dumpi_str(const struct dumpi_stream *s, const struct dumpi_arg *a, uint32_t i, uint32_t *len)
{
	size_t off = a->off;
	for (uint32_t k = 0; k < i; k++)
		off += 4 + be32(s->p + off);
	*len = be32(s->p + off);
	return (const char *)s->p + off + 4;
}

static int ds_err(const struct dumpi_stream *s, struct nl_err *err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int ds_err(const struct dumpi_stream *s, struct nl_err *err, uint64_t off, const char *fmt, ...)
{
	char what[NL_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return nl_errf(err, NL_EFORMAT, "%s: rank %u, offset %llu: %s", s->name, s->rank, (unsigned long long)off,
		       what);
}

int dumpi_stream_open(struct dumpi_stream *s, const uint8_t *p, size_t len, const char *name, uint32_t rank,
		      struct nl_err *err)
{
	uint64_t v[8], sizelbl = 0, sizelbl_at = 0, header, footer;
	memset(s, 0, sizeof *s);
	s->p = p;
	s->len = len;
	s->name = name;
	s->rank = rank;
	if (len < 8 || be64(p) != DUMPI_HEAD_MAGIC)
		return ds_err(s, err, 0, "not a DUMPI trace file (bad magic)");
	if (len < 8 + 64)
		return ds_err(s, err, len, "truncated: no index record at the end");
	for (int i = 0; i < 8; i++)
		v[i] = be64(p + len - 64 + 8 * i);
	/* The index grew at its front over versions (io.c
	 * dumpi_open_input_file): [size table,] [addresses,] [perf labels,]
	 * each announced by the lead-in magic, then header, body, footer and
	 * keyval offsets; 8 x u64 in all. */
	int k = 0;
	uint64_t m = v[k++];
	if (m == DUMPI_HEAD_MAGIC) {
		sizelbl_at = len - 64 + 8 * (uint64_t)k; /* where the index stores it */
		sizelbl = v[k++];
	} else {
		m = v[k++];
	}
	if (m == DUMPI_HEAD_MAGIC)
		k++; /* function address labels */
	else
		m = v[k++];
	if (m == DUMPI_HEAD_MAGIC)
		k++; /* perf counter labels */
	else
		m = v[k++];
	if (m != DUMPI_HEAD_MAGIC || k != 4)
		return ds_err(s, err, len - 64, "index record has no lead-in magic (file truncated?)");
	header = v[4];
	s->body = v[5];
	footer = v[6];
	/* Offsets come from the file: compared without adding to them, so a
	 * value near 2^64 cannot wrap past the bound. */
	if (header < 8 || header >= len || s->body < 8 || s->body > header - 8 || footer >= len)
		return ds_err(s, err, len - 64, "index record offsets out of range");
	s->end = header;

	/* Header: 3 x u8 version, u64 start time, u16 + hostname, ... */
	const uint8_t *h = p + header;
	if (header + 13 > len)
		return ds_err(s, err, header, "truncated header");
	memcpy(s->ver, h, 3);
	s->starttime = be64(h + 3);
	uint16_t hl = be16(h + 11);
	if (header + 13 + hl > len)
		return ds_err(s, err, header, "truncated header");
	s->hostname = malloc((size_t)hl + 1);
	if (!s->hostname)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	memcpy(s->hostname, h + 13, hl);
	s->hostname[hl] = '\0';

	/* Footer: magic, then call and ignored counts per label. */
	if (footer > 0 && footer + 8 + 8 * (DUMPI_ALL_FUNCTIONS + 1) <= len && be64(p + footer) == DUMPI_FOOT_MAGIC) {
		s->has_footer = true;
		for (int i = 0; i <= DUMPI_ALL_FUNCTIONS; i++) {
			uint32_t called = be32(p + footer + 8 + 4 * (size_t)i);
			uint32_t ignored = be32(p + footer + 8 + 4 * (DUMPI_ALL_FUNCTIONS + 1) + 4 * (size_t)i);
			s->footer_calls[i] = called >= ignored ? called - ignored : 0;
		}
	}

	/* Datatype sizes (since 0.6.6): u32 n, n x i32, indexed by type id. */
	if (sizelbl) {
		if (sizelbl >= len)
			return ds_err(s, err, sizelbl_at,
				      "index record: datatype size table offset %llu is past the end of the file "
				      "(%zu bytes)",
				      (unsigned long long)sizelbl, len);
		if (len - sizelbl < 4)
			return ds_err(s, err, sizelbl, "truncated datatype size table");
		uint32_t n = be32(p + sizelbl);
		if (n > (len - sizelbl - 4) / 4)
			return ds_err(s, err, sizelbl, "datatype size table longer than the file");
		s->type_sizes = malloc((n ? n : 1) * sizeof *s->type_sizes);
		if (!s->type_sizes)
			return nl_errf(err, NL_ENOMEM, "out of memory");
		for (uint32_t i = 0; i < n; i++)
			s->type_sizes[i] = (int32_t)be32(p + sizelbl + 4 + 4 * (size_t)i);
		s->n_type_sizes = n;
	}

	s->cpu_bias = be32(p + s->body);
	s->wall_bias = be32(p + s->body + 4);
	s->pos = s->body + 8;
	s->sec_last[0] = s->sec_last[1] = -1;
	return 0;
}

void dumpi_stream_release(struct dumpi_stream *s)
{
	free(s->hostname);
	free(s->type_sizes);
	s->hostname = NULL;
	s->type_sizes = NULL;
}

/* Seconds are stored modulo 2^16 (iodefs.h put_times): unwrap against the
 * previous value of the same clock, assuming < 9 h between records. */
static int64_t unwrap_sec(struct dumpi_stream *s, int clock, uint16_t sec16, uint32_t bias)
{
	int64_t last = s->sec_last[clock];
	int64_t v = sec16;
	if (last >= 0) {
		v += (last >> 16) << 16;
		if (v < last - 32768)
			v += 65536;
		else if (v > last + 32768 && v >= 65536)
			v -= 65536;
	}
	s->sec_last[clock] = v;
	return v + bias;
}

#define NEED(n)                                                                          \
	do {                                                                             \
		if ((uint64_t)(n) > s->end - pos)                                        \
			return ds_err(s, err, r->off, "%s record truncated", call->name); \
	} while (0)

/* A record's header after its label: the mask, thread id, CPU and wall
 * times (wall preferred) into r, PAPI counters skipped. *posp past it;
 * *mask for the status arguments. */
static int ds_read_header(struct dumpi_stream *s, struct dumpi_rec *r, const struct dumpi_call *call, uint64_t *posp,
			  uint8_t *maskp, struct nl_err *err)
{
	uint64_t pos = *posp;
	int64_t t[2][2] = {{0, 0}, {0, 0}};
	bool have[2] = {false, false};
	if (pos + 1 > s->end)
		return ds_err(s, err, r->off, "%s record truncated", call->name);
	uint8_t mask = s->p[pos++];
	if (mask & 0x40) {
		NEED(2);
		pos += 2; /* thread id */
	}
	for (int c = 0; c < 2; c++) { /* 0: CPU (bit 2), 1: wall (bit 3) */
		if (!(mask & (4 << c)))
			continue;
		NEED(12);
		uint32_t bias = c ? s->wall_bias : s->cpu_bias;
		for (int e = 0; e < 2; e++) {
			uint16_t sec = be16(s->p + pos);
			uint32_t ns = be32(s->p + pos + 2);
			pos += 6;
			if (ns >= 1000000000u)
				return ds_err(s, err, r->off, "%s record: timestamp nanoseconds %u (expected below 1000000000)",
					      call->name, ns);
			int64_t sec64 = unwrap_sec(s, c, sec, bias);
			/* Unwrapping can add 2^16 s a record: bounded so the ns stay in int64. */
			if (sec64 > DUMPI_MAX_SEC)
				return ds_err(s, err, r->off, "%s record: time %lld s after the epoch (at most %lld)",
					      call->name, (long long)sec64, (long long)DUMPI_MAX_SEC);
			t[c][e] = sec64 * 1000000000 + ns;
		}
		have[c] = true;
	}
	if (mask & 0x80) {
		NEED(1);
		uint8_t n = s->p[pos++];
		NEED((size_t)n * 16);
		pos += (size_t)n * 16;
	}
	int c = have[1] ? 1 : 0;
	if (have[c]) {
		r->has_time = true;
		r->start_ns = t[c][0];
		r->stop_ns = t[c][1];
	}
	*posp = pos;
	*maskp = mask;
	return 0;
}

/* A list of strings or of lists ('A' argv, 'S', 'T', 'J'): a->n and
 * a->off, *posp past it. */
static int ds_read_lists(struct dumpi_stream *s, struct dumpi_rec *r, const struct dumpi_call *call,
			 struct dumpi_arg *a, char type, uint64_t *posp, struct nl_err *err)
{
	uint64_t pos = *posp;
	NEED(4);
	uint32_t n = be32(s->p + pos);
	pos += 4;
	if (type == 'A' && !have_version(s->ver, 0, 6, 2)) {
		NEED(4);
		pos += 4; /* argc written twice before 0.6.2 */
	}
	a->n = n;
	a->off = pos;
	for (uint32_t i = 0; i < n; i++) {
		NEED(4);
		uint32_t m = be32(s->p + pos);
		pos += 4;
		if (type == 'A' || type == 'S') {
			NEED(m);
			pos += m;
		} else if (type == 'J') {
			NEED((uint64_t)m * 4);
			pos += (size_t)m * 4;
		} else {
			for (uint32_t j = 0; j < m; j++) {
				NEED(4);
				uint32_t l = be32(s->p + pos);
				pos += 4;
				NEED(l);
				pos += l;
			}
		}
	}
	*posp = pos;
	return 0;
}

/* One argument of descriptor letter type (see the table's comment) into
 * a, *posp past it. */
static int ds_read_arg(struct dumpi_stream *s, struct dumpi_rec *r, const struct dumpi_call *call,
		       struct dumpi_arg *a, char type, uint8_t mask, uint64_t *posp, struct nl_err *err)
{
	uint64_t pos = *posp;
	switch (type) {
	case 'i':
		NEED(4);
		a->v = (int32_t)be32(s->p + pos);
		pos += 4;
		break;
	case 'h':
		NEED(2);
		a->v = be16(s->p + pos);
		pos += 2;
		break;
	case 'b':
		NEED(1);
		a->v = s->p[pos];
		pos += 1;
		break;
	case 'l':
		NEED(8);
		a->v = (int64_t)be64(s->p + pos);
		pos += 8;
		break;
	case 'I':
	case 'H':
	case 'B': {
		size_t w = type == 'I' ? 4 : type == 'H' ? 2 : 1;
		NEED(4);
		a->n = be32(s->p + pos);
		pos += 4;
		NEED((uint64_t)a->n * w);
		a->off = pos;
		pos += (size_t)a->n * w;
		break;
	}
	case 's':
		NEED(4);
		a->n = be32(s->p + pos);
		NEED(4 + (uint64_t)a->n);
		pos += 4 + (size_t)a->n;
		break;
	case 'A':
	case 'S':
	case 'T':
	case 'J':
		return ds_read_lists(s, r, call, a, type, posp, err);
	case 'x':
		if (!(mask & 3)) {
			a->present = false;
			break;
		}
		NEED(4);
		a->n = be32(s->p + pos);
		pos += 4;
		NEED((uint64_t)a->n * status_size(s));
		a->off = pos;
		pos += (size_t)a->n * status_size(s);
		break;
	default:
		NL_BUG("dumpi descriptor letter '%c' for %s", type, call->name);
	}
	*posp = pos;
	return 0;
}

int dumpi_stream_next(struct dumpi_stream *s, struct dumpi_rec *r, struct nl_err *err)
{
	uint64_t pos = s->pos;
	uint8_t mask = 0;

	memset(r, 0, sizeof *r);
	r->off = pos;
	if (pos + 2 > s->end)
		return ds_err(s, err, pos, "call stream ends without its end-of-stream label");
	r->label = be16(s->p + pos);
	pos += 2;
	if (r->label == DUMPI_END_OF_STREAM) {
		s->pos = pos;
		return 0;
	}
	const struct dumpi_call *call = r->label < DUMPI_N_LABELS ? &dumpi_calls[r->label] : NULL;
	if (!call || !call->name)
		return ds_err(s, err, r->off, "unknown call label %u", r->label);
	if (!call->args)
		return ds_err(s, err, r->off, "%s record: the DUMPI format defines no layout for it", call->name);
	NL_CHECK(ds_read_header(s, r, call, &pos, &mask, err));
	for (const char *d = call->args; *d; d++) {
		bool cond = false;
		if (*d == '?') {
			cond = true;
			d++;
		}
		if (r->n_args == DUMPI_MAX_ARGS)
			NL_BUG("dumpi descriptor too long for %s", call->name);
		struct dumpi_arg *a = &r->a[r->n_args++];
		a->type = *d;
		if (cond && r->a[call->cond_rank].v != r->a[call->cond_root].v)
			continue;
		a->present = true;
		a->off = pos;
		char type = *d;
		if (type == 'V' || type == 'W') {
			bool arr = type == 'V' ? have_version(s->ver, 0, 6, 9) : have_version(s->ver, 0, 6, 8);
			type = arr ? 'I' : 'i';
			a->type = type;
		}
		NL_CHECK(ds_read_arg(s, r, call, a, type, mask, &pos, err));
	}
	s->pos = pos;
	return 1;
}
