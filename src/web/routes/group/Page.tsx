/** The frame of every state of the group screen: the top bar, the page, the footer. */
import type { ReactNode } from 'react';
import { Footer } from '../../components/Footer.js';
import { Loader } from '../../components/icons/index.js';
import { TopBar } from '../../components/TopBar.js';
import { mutedText } from '../../lib/ui.js';

export function Shell({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <TopBar />
      <main className="page-main">{children}</main>
      <Footer />
    </div>
  );
}

/** 'Loading group...' and 'Loading counters...'. */
export function Pending({ children, tall = false }: { children: ReactNode; tall?: boolean }) {
  const place = tall ? 'min-h-dvh items-start pt-16' : 'items-center';
  return (
    <div
      role="status"
      className={`flex flex-1 justify-center gap-3 py-10 text-lg ${place} ${mutedText}`}
    >
      <Loader className="size-5 animate-spin" />
      {children}
    </div>
  );
}
