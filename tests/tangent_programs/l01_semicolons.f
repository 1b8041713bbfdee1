C     Legacy fixed form: statements ended or separated by semicolons
      subroutine f(x, y)
      real*8 x, y, t;
      t = x*x; y = sin(t);
      if (x .gt. 100.0d0) goto 10;
      y = y + t*x; y = y*t
   10 if (y .lt. 100.0d0) then; y = 2.0d0*y; end if
      end
