/* The marginal cost of eight independent zmm operations added to a loop of sixteen independent
   FMAs (tanh's analysis in src/ulplab/export/fast64/tanh.py and docs/limits.md quote its
   figures from the 2-core AMD EPYC VM, 2026-11-27). Build and run on an AVX-512 machine:
     gcc -O2 -march=x86-64-v4 benchmarks/op_costs.c -o /tmp/op_costs && /tmp/op_costs
   Each line: ns per loop iteration; subtract the first line's and divide by eight for one
   operation's cost, by the first line's / 16 for it in FMA slots. Two rounds: take the second
   (the first warms the clock). */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define N 40000000L
#define BARRIER __asm__ volatile(""::"v"(a[0]),"v"(a[1]),"v"(a[2]),"v"(a[3]),"v"(a[4]),"v"(a[5]),"v"(a[6]),"v"(a[7]))
#define PB __asm__ volatile(""::"v"(p[0]),"v"(p[1]),"v"(p[2]),"v"(p[3]),"v"(p[4]),"v"(p[5]),"v"(p[6]),"v"(p[7]))
#define BODY(NAME, OP) { t0=now(); for(long k=0;k<N;k++){ \
    _Pragma("GCC unroll 8") for(int i=0;i<8;i++) a[i]=_mm512_fmadd_pd(a[i],b,c); \
    _Pragma("GCC unroll 8") for(int i=0;i<8;i++) { OP; } \
    _Pragma("GCC unroll 8") for(int i=0;i<8;i++) a[i]=_mm512_fmadd_pd(a[i],c,b); \
    BARRIER; PB; } t1=now(); printf("%-34s %.3f ns\n", NAME, (t1-t0)/N*1e9); }
int main(){
  __m512d a[8],p[8],b=_mm512_set1_pd(1.0000001),c=_mm512_set1_pd(0.9999999),q=_mm512_set1_pd(3.0);
  for(int i=0;i<8;i++){a[i]=_mm512_set1_pd(1.0+i*1e-3);p[i]=_mm512_set1_pd(2.0+i);}
  __m512i ix=_mm512_set_epi64(1,3,5,7,0,2,4,6); __mmask8 m=0x5A; double t0,t1;
  for(int rep=0;rep<2;rep++){
  BODY("16 fma", (void)0)
  BODY("+8 vpermpd", p[i]=_mm512_permutexvar_pd(ix,p[i]))
  BODY("+8 vpermt2pd", p[i]=_mm512_permutex2var_pd(p[i],ix,q))
  BODY("+8 vblendmpd", p[i]=_mm512_mask_blend_pd(m,p[i],q))
  BODY("+8 vaddpd", p[i]=_mm512_add_pd(p[i],q))
  BODY("+8 vmulpd", p[i]=_mm512_mul_pd(p[i],b))
  BODY("+8 vpaddq", p[i]=_mm512_castsi512_pd(_mm512_add_epi64(_mm512_castpd_si512(p[i]),ix)))
  BODY("+8 vpternlogq", p[i]=_mm512_castsi512_pd(_mm512_ternarylogic_epi64(_mm512_castpd_si512(p[i]),ix,_mm512_castpd_si512(q),0x96)))
  BODY("+8 vcvtps2pd(lo of p)", p[i]=_mm512_cvtps_pd(_mm512_castps512_ps256(_mm512_castpd_ps(p[i]))))
  BODY("+8 vdivpd(indep chains of 8)", p[i]=_mm512_div_pd(q,p[i]))
  }
  double s=0,o[8]; for(int i=0;i<8;i++){_mm512_storeu_pd(o,_mm512_add_pd(a[i],p[i]));s+=o[0];} printf("%g\n",s);
}
