extern "C" __global__ void k(unsigned *o, const unsigned *a, const int *b) {
  unsigned x = a[0], y = a[1], z = a[2];
  int p = b[0], q = b[1], r = b[2];
  bool pr;
  o[0] = __vimax3_s16x2(x, y, z);
  o[1] = __vimin3_u16x2(x, y, z);
  o[2] = __viaddmax_s16x2(x, y, z);
  o[3] = __viaddmin_u16x2(x, y, z);
  o[4] = __vibmax_s16x2(x, y, &pr, &pr);
  o[5] = __vimax_s16x2_relu(x, y);
  o[6] = __vimin3_s16x2_relu(x, y, z);
  o[7] = __viaddmax_s16x2_relu(x, y, z);
  o[8] = __vimax3_s32(p, q, r);
  o[9] = __viaddmin_s32_relu(p, q, r);
  o[10] = __vibmin_u32(x, y, &pr);
  o[11] = __vimax_s16x2_relu(y, x);
  o[12] = __viaddmax_u16x2(x,y,z);
  o[13] = __vibmin_s16x2(x, y, &pr, &pr) + pr;
}
